import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A second `scripts/pg` cluster of a test's own, on `port`, for tests that stop and start a
/// server without disturbing the suites on the main test server.
public struct ThrowawayCluster: Sendable {
    /// `scripts/pg` failed.
    public struct ScriptFailed: Error, CustomStringConvertible {
        /// The command that failed.
        public var description: String
    }

    /// The checkout's root.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    /// The port it listens on.
    public let port: String

    /// The cluster on `port`.
    public init(port: String) {
        self.port = port
    }

    /// Runs `scripts/pg ARGUMENTS` for this cluster and returns its standard output.
    ///
    /// Through `system`, which waits for the script alone: Foundation's `Process` waits until
    /// every holder of a descriptor it passed exits, and `start` leaves the server holding them.
    @discardableResult
    public func pg(_ arguments: String...) throws -> String {
        try pg(arguments: arguments)
    }

    /// `pg(_:)` with the arguments as an array.
    @discardableResult
    public func pg(arguments: [String]) throws -> String {
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("pg-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        let command =
            "TASKBASE_PG_PORT=\(port) '\(Self.root)/scripts/pg' \(arguments.joined(separator: " ")) >'\(outputPath)' 2>/dev/null </dev/null"
        guard system(command) == 0 else { throw ScriptFailed(description: "scripts/pg \(arguments.joined(separator: " ")) failed") }
        return try String(contentsOfFile: outputPath, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
