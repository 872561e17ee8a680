import CommandLineToolkit
import Foundation
import Migrations

/// `status --json`: one document describing every migration, and the INVALID indexes that
/// failed or killed concurrent builds left (`[]` when there are none).
struct StatusDocument: Encodable {
    struct Migration: Encodable {
        var version: Int64
        var name: String
        var file: String
        var state: MigrationState
        /// The file's checksum, or the recorded one when the file is gone.
        var checksum: String
        /// The recorded checksum when it differs from the file's.
        var appliedChecksum: String?
        var appliedAt: Date?
        var executionMs: Int64?
        var appliedBy: String?
        var toolVersion: String?
        var baseline: Bool?
        var transactional: Bool?
        var reversible: Bool?

        private enum CodingKeys: String, CodingKey {
            case version, name, file, state, checksum, appliedChecksum, appliedAt, executionMs, appliedBy, toolVersion, baseline, transactional,
                reversible
        }

        /// Every key is present; what does not apply is `null`, so consumers need no guessing.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(version, forKey: .version)
            try container.encode(name, forKey: .name)
            try container.encode(file, forKey: .file)
            try container.encode(state, forKey: .state)
            try container.encode(checksum, forKey: .checksum)
            try container.encode(appliedChecksum, forKey: .appliedChecksum)
            try container.encode(appliedAt, forKey: .appliedAt)
            try container.encode(executionMs, forKey: .executionMs)
            try container.encode(appliedBy, forKey: .appliedBy)
            try container.encode(toolVersion, forKey: .toolVersion)
            try container.encode(baseline, forKey: .baseline)
            try container.encode(transactional, forKey: .transactional)
            try container.encode(reversible, forKey: .reversible)
        }
    }

    var currentVersion: Int64?
    var pending: Int
    var drift: Int
    /// Applied migrations above the folder's newest file (a newer release's).
    var ahead: Int
    var migrations: [Migration]
    var invalidIndexes: [InvalidIndex]

    private enum CodingKeys: String, CodingKey {
        case currentVersion, pending, drift, ahead, migrations, invalidIndexes
    }

    /// Every key is present, `current_version` too (`null` on an empty history).
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(currentVersion, forKey: .currentVersion)
        try container.encode(pending, forKey: .pending)
        try container.encode(drift, forKey: .drift)
        try container.encode(ahead, forKey: .ahead)
        try container.encode(migrations, forKey: .migrations)
        try container.encode(invalidIndexes, forKey: .invalidIndexes)
    }

    init(plan: MigrationPlan, invalidIndexes: [InvalidIndex]) {
        self.invalidIndexes = invalidIndexes
        currentVersion = plan.currentVersion
        pending = plan.pending.count
        drift = plan.entries.filter(\.state.isDrift).count
        ahead = plan.ahead.count
        migrations = plan.entries.map { entry in
            let recorded = entry.record?.checksum
            let checksum = entry.file?.checksum ?? recorded ?? ""
            return Migration(
                version: entry.version, name: entry.name, file: entry.file?.fileName ?? entry.record?.fileName ?? "",
                state: entry.state, checksum: checksum, appliedChecksum: recorded == checksum ? nil : recorded,
                appliedAt: entry.record?.appliedAt, executionMs: entry.record?.executionMilliseconds,
                appliedBy: entry.record?.appliedBy, toolVersion: entry.record?.toolVersion, baseline: entry.record?.isBaseline,
                transactional: entry.file?.runsInTransaction, reversible: entry.file.map { $0.down != nil })
        }
    }
}

/// `verify --json`: whether the folder matches the history and no INVALID index is left, the
/// entries that drifted and the INVALID indexes; every key always present.
struct VerifyDocument: Encodable {
    struct Drifted: Encodable {
        var version: Int64
        var file: String
        var state: MigrationState
    }

    var verified: Bool
    var applied: Int
    var pending: Int
    var drifted: [Drifted]
    var invalidIndexes: [InvalidIndex]

    init(plan: MigrationPlan, invalidIndexes: [InvalidIndex]) {
        applied = plan.applied.count
        pending = plan.pending.count
        drifted = plan.entries.filter(\.state.isDrift).map { entry in
            Drifted(version: entry.version, file: entry.file?.fileName ?? entry.record?.fileName ?? "", state: entry.state)
        }
        self.invalidIndexes = invalidIndexes
        verified = drifted.isEmpty && invalidIndexes.isEmpty
    }
}

/// A taskmigrate document (`status --json`, `verify --json`) as printed.
protocol MigrateDocument: Encodable {}

extension MigrateDocument {
    /// The house JSON style (JSONOutput) with snake_case keys, ending with a newline.
    func encoded() throws -> String {
        let encoder = JSONOutput.makeEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return String(decoding: try encoder.encode(self), as: UTF8.self) + "\n"
    }
}

extension StatusDocument: MigrateDocument {}
extension VerifyDocument: MigrateDocument {}
