import Foundation
import TaskbaseTestSupport
import Testing

/// `scripts/quickstart --stop` stops the taskserve the quickstart left running, and only that:
/// the pid file it reads may name another program by the time it runs (the pid reused after a
/// reboot), and that program is left alone. No database or build is needed: the "taskserve"
/// here is a copy of sleep(1) under that name, which is the name `ps` reports. scripts/test
/// stops a real one (the quickstart's own pass).
@Suite("scripts/quickstart --stop", .timeLimit(.minutes(1)))
struct QuickstartStopTests {
    /// A program running under `name` from a folder of its own: sleep(1), copied, started as a
    /// shell starts it (no signal blocked: SIGTERM must be able to end it).
    static func sleeper(named name: String, in folder: URL) throws -> RunningProgram {
        let program = folder.appendingPathComponent(name)
        try FileManager.default.copyItem(at: URL(fileURLWithPath: "/bin/sleep"), to: program)
        return try BuiltProgram.start(program, arguments: ["60"], environment: [:])
    }

    /// Runs `scripts/quickstart --stop` with its state in `folder`.
    static func stop(stateIn folder: URL) async throws -> ProgramRun {
        try await BuiltProgram.run(
            PackagePaths.script("quickstart"), arguments: ["--stop"],
            environment: BuiltProgram.environment(adding: ["TASKBASE_QUICKSTART_STATE": folder.path]))
    }

    /// Whether `pid` runs: it exists and has not ended (a child not yet waited for stays as a
    /// zombie, state Z, which kill(pid, 0) still finds).
    static func isRunning(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return false }
        let state = stat.split(separator: ")").last?.split(separator: " ").first
        return state != nil && state != "Z"
    }

    static func writePID(_ pid: Int32, in folder: URL) throws {
        try "\(pid)\n".write(to: folder.appendingPathComponent("taskserve.pid"), atomically: true, encoding: .utf8)
    }

    @Test("the taskserve its pid file names is stopped with SIGTERM, and the file removed")
    func stopsTaskserve() async throws {
        let folder = try scratchFolder("quickstart-stop")
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try Self.sleeper(named: "taskserve", in: folder)
        try Self.writePID(server.processIdentifier, in: folder)

        let outcome = try await Self.stop(stateIn: folder)
        #expect(outcome.exitCode == 0, "\(outcome)")
        #expect(outcome.standardOutput == "stopped taskserve (pid \(server.processIdentifier))\n", "\(outcome.standardOutput)")
        let end = try await server.finish(within: .seconds(5))
        #expect(end.killedBySignal && end.exitCode == SIGTERM, "\(end)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("taskserve.pid").path))
    }

    @Test("a pid file naming another program leaves that program running")
    func leavesAnotherProgram() async throws {
        let folder = try scratchFolder("quickstart-stop")
        defer { try? FileManager.default.removeItem(at: folder) }
        let other = try Self.sleeper(named: "not-taskserve", in: folder)
        defer { other.send(SIGKILL) }
        try Self.writePID(other.processIdentifier, in: folder)

        let outcome = try await Self.stop(stateIn: folder)
        #expect(outcome.exitCode == 0, "\(outcome)")
        #expect(outcome.standardOutput == "no taskserve started by scripts/quickstart is running\n", "\(outcome.standardOutput)")
        #expect(Self.isRunning(other.processIdentifier), "pid \(other.processIdentifier) was stopped")
    }

    @Test("with no pid file it says nothing runs and exits 0")
    func nothingToStop() async throws {
        let folder = try scratchFolder("quickstart-stop")
        defer { try? FileManager.default.removeItem(at: folder) }
        let outcome = try await Self.stop(stateIn: folder)
        #expect(outcome.exitCode == 0, "\(outcome)")
        #expect(outcome.standardOutput == "no taskserve started by scripts/quickstart is running\n", "\(outcome.standardOutput)")
    }
}
