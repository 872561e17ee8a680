import Foundation
import TaskbaseTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A program run as a child process with `posix_spawn`, its output captured in files and its
/// end awaited by polling `waitpid` without blocking a Swift thread.
///
/// Not Foundation's `Process`: on Linux it learns of a child's end through a descriptor the
/// child inherits, so a script that starts a daemon (`pg_ctl start`, `pgbouncer -d`) never
/// "ends" while the daemon runs.
final class ChildProcess: Sendable {
    /// How a finished process ended and what it printed.
    struct Outcome: Sendable, CustomStringConvertible {
        /// The exit status, or the signal number when `killedBySignal`.
        var status: Int32
        var killedBySignal: Bool
        var standardOutput: String
        var standardError: String

        var description: String { "\(killedBySignal ? "killed by signal" : "exit") \(status); stderr: \(standardError)" }
    }

    /// A child that could not be started.
    struct SpawnFailed: Error, CustomStringConvertible {
        var path: String
        var code: Int32
        var description: String { "cannot start \(path): \(String(cString: strerror(code)))" }
    }

    /// The child's process id, e.g. to send it a signal.
    let processIdentifier: pid_t
    private let folder: URL

    /// Starts `executable` with `arguments`; `environment` is added to this process's own.
    init(_ executable: URL, _ arguments: [String], environment: [String: String] = [:]) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("reliability-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, folder.appendingPathComponent("stdout").path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, folder.appendingPathComponent("stderr").path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let variables = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }.map { "\($0.key)=\($0.value)" }
        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        let envp = variables.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, executable.path, &actions, nil, argv, envp)
        guard code == 0 else { throw SpawnFailed(path: executable.path, code: code) }
        processIdentifier = pid
    }

    /// Waits for the end and reads what the child printed.
    func finish() async -> Outcome {
        outcome(status: await reap(before: nil) ?? 0)
    }

    /// Waits for the end at most `limit`; a child still running then is killed and reported
    /// as an error (a hang).
    func finish(within limit: Duration) async throws -> Outcome {
        if let status = await reap(before: ContinuousClock.now + limit) { return outcome(status: status) }
        kill(processIdentifier, SIGKILL)
        _ = await finish()
        throw GaveUpWaiting(what: "pid \(processIdentifier) to exit (killed it after \(limit))")
    }

    /// The raw wait status once the child ended, or nil when `deadline` passed first.
    private func reap(before deadline: ContinuousClock.Instant?) async -> Int32? {
        var status: Int32 = 0
        while waitpid(processIdentifier, &status, WNOHANG) == 0 {
            if let deadline, ContinuousClock.now >= deadline { return nil }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return status
    }

    /// The outcome of a reaped child: its status and what it printed.
    private func outcome(status: Int32) -> Outcome {
        let output = (try? String(contentsOf: folder.appendingPathComponent("stdout"), encoding: .utf8)) ?? ""
        let errors = (try? String(contentsOf: folder.appendingPathComponent("stderr"), encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(at: folder)
        let signal = status & 0x7F
        return Outcome(
            status: signal == 0 ? (status >> 8) & 0xFF : signal, killedBySignal: signal != 0, standardOutput: output, standardError: errors)
    }

    /// Runs a command to its end.
    static func run(_ executable: URL, _ arguments: [String], environment: [String: String] = [:]) async throws -> Outcome {
        try await ChildProcess(executable, arguments, environment: environment).finish()
    }
}

/// Where the package's own programs and scripts are.
enum PackagePaths {
    /// The package's root folder.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// `migrations/`.
    static let migrations = URL(fileURLWithPath: TestDatabases.migrationsDirectory)

    /// A script under `scripts/`.
    static func script(_ name: String) -> URL { root.appendingPathComponent("scripts").appendingPathComponent(name) }

    /// A built executable of the package: it sits next to the test bundle in the build folder.
    static func executable(_ name: String) -> URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent(name)
    }
}
