import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A `taskserve` child process listening on 127.0.0.1 (a free port unless told one), its
/// stderr (the access log) in a file: for the server's process tests and the client's.
public final class ServeProcess: @unchecked Sendable {
    /// The child.
    public let process = Process()
    /// Where its stderr goes.
    public let logURL: URL
    /// `http://127.0.0.1:PORT`, from its "listening" line.
    public private(set) var baseURL = ""
    /// The port of `baseURL` (0 before it listens).
    public var port: UInt16 { URL(string: baseURL)?.port.map { UInt16($0) } ?? 0 }

    /// Starts taskserve with `environment` (plus `--listen listen` and `arguments`) and waits
    /// for its "listening" line.
    public init(environment: [String: String], listen: String = "127.0.0.1:0", arguments: [String] = []) async throws {
        logURL = FileManager.default.temporaryDirectory.appendingPathComponent("taskserve-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        process.executableURL = BuiltProgram.url("taskserve")
        process.arguments = ["--listen", listen] + arguments
        process.environment = environment
        process.standardError = try FileHandle(forWritingTo: logURL)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        try await waitUntil("taskserve to listen") {
            guard let line = self.log.split(separator: "\n").first(where: { $0.contains(#""listening""#) }) else {
                guard self.process.isRunning else { throw ServeFailure(log: self.log, status: self.process.terminationStatus) }
                return false
            }
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            self.baseURL = object?["listening"] as? String ?? ""
            return true
        }
    }

    /// Everything it wrote to stderr so far.
    public var log: String { (try? String(contentsOf: logURL, encoding: .utf8)) ?? "" }

    /// The access-log lines as JSON objects.
    public var accessLog: [[String: Any]] {
        log.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }.filter {
            $0["route"] != nil
        }
    }

    /// Sends `signal` and waits for the exit status. The wait allows the shutdown grace (10 s)
    /// twice over and more, for a machine loaded by the whole suite; when it runs out, the error
    /// carries the server's log, which says how far its shutdown got ("stopping", "stopped").
    public func stop(signal: Int32 = SIGTERM) async throws -> Int32 {
        kill(process.processIdentifier, signal)
        do {
            try await waitUntil("taskserve to exit", limit: .seconds(45)) { !self.process.isRunning }
        } catch let gaveUp as GaveUpWaiting {
            throw GaveUpWaiting(what: "\(gaveUp.what) (its log: \(String(log.suffix(2_000))))")
        }
        return process.terminationStatus
    }

    /// Pauses it (SIGSTOP: a paused VM, a long stall) and returns once every thread of it has
    /// stopped. `kill` returns once the signal is queued: one thread of the process takes it
    /// and stops the others, and until that thread has a CPU (tens of milliseconds on a loaded
    /// machine) the rest run on, answering what arrives meanwhile.
    public func pause() async throws {
        kill(process.processIdentifier, SIGSTOP)
        try await waitUntil("taskserve to stop on SIGSTOP", limit: .seconds(30), every: .milliseconds(5)) { isStopped }
    }

    /// Lets it go on after `pause()`.
    public func resume() {
        kill(process.processIdentifier, SIGCONT)
    }

    /// Every thread of it stopped: state T in /proc/PID/task/TID/stat (the state follows the
    /// command name in parentheses, which may hold any character).
    var isStopped: Bool { Self.isStopped(process.processIdentifier) }

    /// Whether every thread of process `pid` is stopped (SIGSTOP).
    public static func isStopped(_ pid: pid_t) -> Bool {
        let tasks = "/proc/\(pid)/task"
        guard let threads = try? FileManager.default.contentsOfDirectory(atPath: tasks), !threads.isEmpty else { return false }
        // A thread gone meanwhile (no state) stops nothing.
        return threads.allSatisfy { thread in (state(ofStat: "\(tasks)/\(thread)/stat") ?? "T") == "T" }
    }

    /// The state letter of the process or thread whose stat file is at `path` (`R`, `S`, `T`,
    /// `Z`...); nil when it is gone. It follows the command name in parentheses, which may
    /// hold any character, so it is read after the last `)`.
    public static func state(ofStat path: String) -> Character? {
        guard let stat = try? String(contentsOfFile: path, encoding: .utf8), let commandEnd = stat.lastIndex(of: ")") else { return nil }
        return stat[stat.index(after: commandEnd)...].drop { $0 == " " }.first
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: logURL)
    }
}

/// taskserve exited before listening.
public struct ServeFailure: Error, CustomStringConvertible {
    /// What it wrote to stderr.
    public var log: String
    /// Its exit status.
    public var status: Int32
    /// The log, introduced.
    public var description: String { "taskserve exited before listening: \(log)" }
}
