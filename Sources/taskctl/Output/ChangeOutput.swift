import CommandLineToolkit
import Foundation
import SafeText
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
