import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A program started as a child process with `posix_spawn`, its output going to files (no
/// pipe can fill up and stall it) and its end awaited by polling `waitpid`, never blocking a
/// Swift thread. `BuiltProgram.run` runs one to its end; a test keeps one running (a watch, a
/// migration to kill) to read its output meanwhile and send it signals.
///
/// Not Foundation's `Process`: on Linux it learns of a child's end through a descriptor the
/// child inherits, so a script that starts a daemon (`pg_ctl start`, `pgbouncer -d`) never
/// "ends" while the daemon runs.
public final class RunningProgram: @unchecked Sendable {
    /// A program that could not be started.
    public struct SpawnFailed: Error, CustomStringConvertible {
        public var path: String
        public var code: Int32
        public var description: String { "cannot start \(path): \(String(cString: strerror(code)))" }
    }

    /// The child's process id, e.g. to send it a signal.
    public let processIdentifier: pid_t
    private let folder: URL
    private let lock = NSLock()
    private var reaped = false

    /// Starts `executable` with `arguments` and exactly `environment`, reading `input` (or
    /// nothing) on standard input, in `currentDirectory` (or this process's).
    public init(
        _ executable: URL, arguments: [String], environment: [String: String], input: String? = nil, currentDirectory: URL? = nil
    ) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("taskbase-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let inputPath = folder.appendingPathComponent("stdin").path
        try Data((input ?? "").utf8).write(to: URL(fileURLWithPath: inputPath))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, inputPath, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, folder.appendingPathComponent("stdout").path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, folder.appendingPathComponent("stderr").path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        // glibc's posix_spawn_file_actions_addchdir_np is not visible to Swift: a working
        // directory of its own goes through coreutils' `env --chdir`, which then execs the program.
        let command = currentDirectory.map { ["/usr/bin/env", "--chdir=\($0.path)", executable.path] } ?? [executable.path]
        let argv = (command + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        // As a shell starts a program: no signal blocked, and SIGINT, SIGTERM, SIGHUP and SIGPIPE
        // at their defaults, whatever the spawning thread of this test process had (a stop
        // signal inherited blocked would never reach the program: seen in CI as a taskimport,
        // sent SIGHUP at once, waiting out its test's 20 s).
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t(), stopSignals = sigset_t()
        sigemptyset(&noSignals)
        sigemptyset(&stopSignals)
        for number in [SIGINT, SIGTERM, SIGHUP, SIGPIPE] { sigaddset(&stopSignals, number) }
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &stopSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let code = posix_spawn(&pid, command[0], &actions, &attributes, argv, envp)
        guard code == 0 else {
            try? FileManager.default.removeItem(at: folder)
            throw SpawnFailed(path: executable.path, code: code)
        }
        processIdentifier = pid
    }

    /// What it has written to standard output so far (all of it, once it ended).
    public var standardOutputSoFar: String { read("stdout") }
    /// What it has written to standard error so far.
    public var standardErrorSoFar: String { read("stderr") }

    /// Sends it `signal` (`SIGINT` is Ctrl-C); nothing once it has been waited for (its
    /// process id may belong to another process by then).
    public func send(_ signal: Int32) {
        lock.withLock { if !reaped { _ = kill(processIdentifier, signal) } }
    }

    /// Whether it has taken `signal` over yet: blocked it (kept pending for later) or installed a
    /// handler (SigBlk, SigCgt in /proc/PID/status). Until then the signal would end it the
    /// default way.
    public func takesOver(_ signal: Int32) -> Bool {
        guard let status = try? String(contentsOfFile: "/proc/\(processIdentifier)/status", encoding: .utf8) else { return false }
        let masks = status.split(separator: "\n").filter { $0.hasPrefix("SigBlk:") || $0.hasPrefix("SigCgt:") }.compactMap { line in
            UInt64(line.drop(while: { $0 != ":" }).dropFirst().trimmingCharacters(in: .whitespaces), radix: 16)
        }
        return masks.contains { $0 & (1 << UInt64(signal - 1)) != 0 }
    }

    deinit {
        if !reaped { kill(processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: folder)
    }

    /// Waits for the end and reads what it printed.
    public func finish() async -> ProgramRun {
        run(status: await reap(before: nil) ?? 0)
    }

    /// Waits for the end at most `limit`; a program still running then is killed and reported
    /// as an error (a hang).
    public func finish(within limit: Duration) async throws -> ProgramRun {
        if let status = await reap(before: ContinuousClock.now + limit) { return run(status: status) }
        send(SIGKILL)
        _ = await finish()
        throw GaveUpWaiting(what: "pid \(processIdentifier) to exit (killed it after \(limit))")
    }

    /// The raw wait status once the child ended, or nil when `deadline` passed first.
    private func reap(before deadline: ContinuousClock.Instant?) async -> Int32? {
        var status: Int32 = 0
        while lock.withLock({ () -> Bool in
            reaped = waitpid(processIdentifier, &status, WNOHANG) != 0
            return !reaped
        }) {
            if let deadline, ContinuousClock.now >= deadline { return nil }
            do {
                try await Task.sleep(for: .milliseconds(10))
            } catch {
                // Cancelled (a test's time limit): every later sleep would throw at once and the
                // loop would spin, starving the other tests' tasks. Stop the child and reap it.
                return lock.withLock {
                    kill(processIdentifier, SIGKILL)
                    _ = waitpid(processIdentifier, &status, 0)
                    reaped = true
                    return status
                }
            }
        }
        return status
    }

    private func read(_ name: String) -> String {
        (try? String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)) ?? ""
    }

    /// The run of a reaped child: how it ended and what it printed.
    private func run(status: Int32) -> ProgramRun {
        let output = read("stdout"), errors = read("stderr")
        let signal = status & 0x7F
        return ProgramRun(
            exitCode: signal == 0 ? (status >> 8) & 0xFF : signal, killedBySignal: signal != 0, standardOutput: output,
            standardError: errors)
    }
}
