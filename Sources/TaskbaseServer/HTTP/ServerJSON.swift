import Foundation
import TaskbaseWire

/// The server's one encoder: the wire settings (compact, sorted keys, ISO 8601).
enum ServerJSON {
    /// JSONEncoder is safe to share once configured.
    static let encoder = WireJSON.makeEncoder()
}
