import Foundation
import TaskbaseTestSupport

/// A long-running `taskctl` (such as `watch`) whose output the test reads while it runs: a
/// `RunningProgram` against the test database, in a scratch directory (so no `.env` is read).
final class BackgroundTaskctl: Sendable {
    private let program: RunningProgram

    /// Everything written to stdout so far.
    var standardOutput: String { program.standardOutputSoFar }
    /// Everything written to stderr so far.
    var standardError: String { program.standardErrorSoFar }

    /// Starts `taskctl arguments` as `actor`.
    init(_ arguments: [String], as actor: String) async throws {
        program = try BuiltProgram.start(
            TaskctlProcess.executableURL, arguments: ["--as", actor] + arguments, environment: try await TaskctlProcess.environment(),
            currentDirectory: FileManager.default.temporaryDirectory)
    }

    /// Waits until stdout (or stderr) contains `text`, for at most `timeout`.
    func waitFor(_ text: String, onStandardError: Bool = false, timeout: Duration = .seconds(15)) async throws {
        try await waitUntil("'\(text)' from taskctl", limit: timeout, every: .milliseconds(20)) {
            (onStandardError ? self.standardError : self.standardOutput).contains(text)
        }
    }

    /// Sends Ctrl-C (SIGINT) and waits for the exit; returns the exit code.
    func interrupt() async -> Int32 {
        program.send(SIGINT)
        return await waitForExit()
    }

    /// Waits for the process to exit on its own and returns its exit code.
    func waitForExit() async -> Int32 {
        await program.finish().exitCode
    }

    /// Stops the process if it still runs (a failed test must not leave it behind). A process
    /// paused with SIGSTOP is continued, so that it can act on the SIGTERM.
    func terminate() {
        program.send(SIGTERM)
        program.send(SIGCONT)
    }

    /// Sends it `signal` (SIGSTOP pauses it, SIGCONT resumes it).
    func send(_ signal: Int32) {
        program.send(signal)
    }
}
