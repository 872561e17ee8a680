import Foundation
import TaskbaseTestSupport

/// The package's shell scripts (`scripts/pg`, `scripts/faults`), run to their end.
enum Scripts {
    /// A script that failed, with what it said.
    struct Failed: Error, CustomStringConvertible {
        var command: String
        var outcome: ProgramRun
        var description: String { "\(command): \(outcome)" }
    }

    /// Runs `scripts/NAME ARGUMENTS` and returns its stdout without the final newline; throws
    /// when it exits non-zero.
    @discardableResult
    static func run(_ name: String, _ arguments: [String], environment: [String: String] = [:]) async throws -> String {
        try await run(at: PackagePaths.script(name), arguments, environment: environment)
    }

    /// `run(_:_:environment:)` for the script at `script` (one in another checkout).
    @discardableResult
    static func run(at script: URL, _ arguments: [String], environment: [String: String] = [:]) async throws -> String {
        let outcome = try await BuiltProgram.run(script, arguments: arguments, environment: BuiltProgram.environment(adding: environment))
        guard outcome.exitCode == 0, !outcome.killedBySignal else {
            let name = "scripts/" + script.lastPathComponent
            throw Failed(command: ([name] + arguments.map { $0.contains("://") ? "URL" : $0 }).joined(separator: " "), outcome: outcome)
        }
        return outcome.standardOutput.trimmingCharacters(in: .newlines)
    }
}
