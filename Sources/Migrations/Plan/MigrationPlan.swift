/// The folder compared with the history: one entry per version found in either, in order,
/// with its state. Pure: built from values, so every rule is testable without a database.
public struct MigrationPlan: Sendable {
    /// One version's standing.
    public struct Entry: Sendable {
        /// The version.
        public var version: Int64
        /// The file's name, or the history's name when the file is gone.
        public var name: String
        /// Where it stands.
        public var state: MigrationState
        /// The file, when there is one.
        public var file: MigrationFile?
        /// The history row, when there is one.
        public var record: AppliedMigration?

        /// True when the history holds a checksum a reviewed comment-only edit superseded:
        /// applied, and `up` records the file's checksum now.
        public var recordsSupersededChecksum: Bool {
            state == .applied && record?.checksum != file?.checksum
        }

        /// The file's path, or the file name the history row stands for.
        public var displayPath: String { file?.path ?? record?.fileName ?? name }
    }

    /// Every version, ascending.
    public let entries: [Entry]

    /// Compares `files` with `history`.
    public init(files: [MigrationFile], history: [AppliedMigration]) {
        let recorded = Dictionary(history.map { ($0.version, $0) }, uniquingKeysWith: { first, _ in first })
        let byVersion = Dictionary(files.map { ($0.version, $0) }, uniquingKeysWith: { first, _ in first })
        let newestApplied = history.map(\.version).max() ?? 0
        let versions = Set(recorded.keys).union(byVersion.keys).sorted()
        // Applied versions above the folder's newest file are a newer release's (ahead) when
        // the folder's files are exactly the applied versions up to it; else each is a file gone.
        let newestFile = byVersion.keys.max() ?? 0
        let foldersOwn = !byVersion.isEmpty && Set(recorded.keys.filter { $0 <= newestFile }) == Set(byVersion.keys) ? newestFile : Int64.max
        entries = versions.map { version in
            let file = byVersion[version]
            let record = recorded[version]
            let state: MigrationState
            switch (file, record) {
            case let (file?, record?):
                let accepted = file.checksum == record.checksum || file.supersededChecksums.contains(record.checksum)
                state = accepted && file.name == record.name ? .applied : .changed
            case (nil, _?):
                state = version > foldersOwn ? .ahead : .missing
            case _:
                state = version < newestApplied ? .outOfOrder : .pending
            }
            return Entry(version: version, name: file?.name ?? record?.name ?? "", state: state, file: file, record: record)
        }
    }

    /// Files `up` would run, in order.
    public var pending: [MigrationFile] {
        entries.compactMap { $0.state == .pending ? $0.file : nil }
    }

    /// Applied migrations newer than the folder (a newer release's), in order.
    public var ahead: [Entry] {
        entries.filter { $0.state == .ahead }
    }

    /// Applied entries, in order.
    public var applied: [Entry] {
        entries.filter { $0.record != nil }
    }

    /// The newest applied version, or nil for an empty history.
    public var currentVersion: Int64? {
        applied.last?.version
    }

    /// Throws when any entry is changed, missing or out of order, naming each file; and when
    /// any is ahead of the folder, unless `allowingNewer` (a rollback of the programs on purpose).
    public func verify(allowingNewer: Bool = false) throws(MigrationDriftError) {
        let problems = entries.filter { $0.state.isDrift || ($0.state == .ahead && !allowingNewer) }.map(MigrationDriftError.Problem.init(entry:))
        if !problems.isEmpty { throw MigrationDriftError(problems: problems, newestApplied: currentVersion) }
    }
}
