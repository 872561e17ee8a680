import CommandLineToolkit
import Foundation
import TaskCore

/// One change of `watch --json`, printed as one compact line (JSON Lines, since a live feed has
/// no end to close a document with): `sequence` (its place in the team's log, for `--after`),
/// `kind` (created, updated, deleted), `key`, `task_id`, `version`, `actor` (email), `at`, and
/// `title` (null for a deletion or a task gone since).
struct ChangeDocument: Encodable {
    var sequence: Int64
    var kind: String
    var key: String
    var taskID: Int64
    var version: Int64
    var actor: String
    var at: Date
    var title: JSONNullable<String>

    enum CodingKeys: String, CodingKey {
        case sequence, kind, key, taskID = "task_id", version, actor, at, title
    }

    /// The document of `change`, by the user named `actor`, of the task titled `title`.
    init(_ change: TaskChange, actor: String, title: String?) {
        sequence = change.sequence
        kind = change.kind.rawValue
        key = change.key.description
        taskID = change.taskID.rawValue
        version = change.version
        self.actor = actor
        at = change.at
        self.title = JSONNullable(title)
    }
}

/// How `watch` prints each change.
enum ChangeOutput {
    /// The encoder of JSON Lines: the house settings without pretty-printing.
    static func makeLineEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    /// `2026-11-30T09:12:01Z  updated  CORE-7  v3  ann@example.com  Fix the login page`.
    static func line(_ change: ChangeDocument) -> String {
        let fields = [
            Timestamp.iso(change.at), change.kind.padding(toLength: 7, withPad: " ", startingAt: 0), change.key, "v\(change.version)", change.actor,
        ]
        return (fields + [change.title.value].compactMap(\.self)).map(TerminalText.clean).joined(separator: "  ") + "\n"
    }

    /// One JSON line of any document.
    static func jsonLine(_ document: some Encodable, encoder: JSONEncoder) throws -> String {
        String(decoding: try encoder.encode(document), as: UTF8.self) + "\n"
    }

    /// `resync  through 42  (too many changes to list one by one: reload the team)`.
    static func line(_ resync: ResyncDocument) -> String {
        "resync  through \(resync.sequence)  (too many changes to list one by one: reload the team)\n"
    }
}

/// The changes up to `sequence` came as a whole (a bulk import): `{"kind": "resync", "sequence": 42}`.
struct ResyncDocument: Encodable {
    var kind = "resync"
    var sequence: Int64
}
