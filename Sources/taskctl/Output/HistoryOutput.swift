import CommandLineToolkit
import Foundation
import TaskCore
import TaskbaseWire

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

    private static func shown(_ value: String?) -> String {
        guard let value else { return "-" }
        let line = value.split(whereSeparator: \.isNewline).joined(separator: " ")
        return line.count > valueWidth ? String(line.prefix(valueWidth - 1)) + "…" : line
    }
}
