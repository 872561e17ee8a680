import CommandLineToolkit
import Foundation
import TaskCore

/// One history entry in JSON: `version`, `kind` (created, updated, imported, reimported),
/// `at`, `actor` (email), and `changes`, each with `field`, `old` and `new` (null when empty;
/// an assignee as an email).
struct HistoryDocument: Encodable {
    /// One field's change.
    struct Change: Encodable {
        var field: String
        var old: JSONNullable<String>
        var new: JSONNullable<String>
    }

    var version: Int64
    var kind: String
    var at: Date
    var actor: String
    var changes: [Change]

    /// The document of `entry`, naming users from `directory`.
    init(_ entry: TaskHistoryEntry, users directory: UserDirectory) {
        version = entry.version
        kind = entry.kind.rawValue
        at = entry.at
        actor = directory.email(entry.actorID)
        changes = entry.changes.map { change in
            Change(
                field: change.field.rawValue,
                old: JSONNullable(HistoryOutput.value(change.old, of: change.field, users: directory)),
                new: JSONNullable(HistoryOutput.value(change.new, of: change.field, users: directory)))
        }
    }

    /// The user ids an entry names: its actor and any assignee before or after.
    static func userIDs(in entry: TaskHistoryEntry) -> [UserID] {
        [entry.actorID]
            + entry.changes.filter { $0.field == .assignee }
            .flatMap { [$0.old, $0.new] }.compactMap { $0.flatMap(Int64.init).map(UserID.init) }
    }
}

/// How `task history` prints.
enum HistoryOutput {
    /// The longest value a table cell shows of a changed field.
    static let valueWidth = 40

    /// The table of `entries`, one row per entry with its changes on one line.
    static func renderTable(_ entries: [HistoryDocument]) -> String {
        var table = TextTable(columns: [.init("VERSION", alignment: .right), .init("WHEN"), .init("WHO"), .init("KIND"), .init("CHANGES")])
        for entry in entries {
            table.append([String(entry.version), Timestamp.iso(entry.at), entry.actor, entry.kind, summary(of: entry.changes)])
        }
        return table.render()
    }

    /// The CSV of `entries`: `version,at,actor,kind,field,old,new`, one row per changed field.
    static func renderCSV(_ entries: [HistoryDocument]) -> String {
        let rows = entries.flatMap { entry -> [[String?]] in
            let head: [String?] = [String(entry.version), Timestamp.iso(entry.at), entry.actor, entry.kind]
            if entry.changes.isEmpty { return [head + [nil, nil, nil]] }
            return entry.changes.map { head + [$0.field, $0.old.value, $0.new.value] }
        }
        return CSVWriter.format([["version", "at", "actor", "kind", "field", "old", "new"]] + rows, configuration: .standardOutput())
    }

    /// `status: open → done; assignee: - → ann@example.com`.
    static func summary(of changes: [HistoryDocument.Change]) -> String {
        changes.map { change in
            "\(change.field): \(shown(change.old.value)) → \(shown(change.new.value))"
        }.joined(separator: "; ")
    }

    /// A recorded value as people read it: an assignee's id becomes their email.
    static func value(_ text: String?, of field: TaskField, users directory: UserDirectory) -> String? {
        guard let text, !text.isEmpty else { return nil }
        if field == .assignee, let id = Int64(text) { return directory.email(UserID(id)) }
        return text
    }

    private static func shown(_ value: String?) -> String {
        guard let value else { return "-" }
        let line = value.split(whereSeparator: \.isNewline).joined(separator: " ")
        return line.count > valueWidth ? String(line.prefix(valueWidth - 1)) + "…" : line
    }
}
