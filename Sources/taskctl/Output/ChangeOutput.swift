import Foundation
import TaskCore
import TaskbaseWire

/// How `watch` prints each change.
enum ChangeOutput {
    /// The encoder of JSON Lines: the house settings without pretty-printing.
    static func makeLineEncoder() -> JSONEncoder {
        WireJSON.makeEncoder()
    }

    /// `2026-11-30T09:12:01Z  updated  CORE-7  v3  ann@example.com  Fix the login page`.
    static func line(_ change: ChangeDocument) -> String {
        let fields = [
            Timestamp.iso(change.at), change.kind.padding(toLength: 7, withPad: " ", startingAt: 0), change.key, "v\(change.version)", change.actor,
        ]
        return (fields + [change.title.value].compactMap(\.self)).map(TerminalText.clean).joined(separator: "  ") + "\n"
    }

    /// One JSON line.
    static func jsonLine(_ change: ChangeDocument, encoder: JSONEncoder) throws -> String {
        String(decoding: try encoder.encode(change), as: UTF8.self) + "\n"
    }
}
