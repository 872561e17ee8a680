import Foundation
import PGStore
import TaskCore
import TaskStoreContract
import TaskStorePG
import TaskbaseTestSupport
import Testing

@Suite("programs stopped by a signal commit nothing afterwards", .timeLimit(.minutes(3)))
struct SignalTests {
    @Test(
        "taskctl task add waiting on a lock, stopped by Ctrl-C (SIGINT), SIGTERM or SIGHUP, cancels its statement, exits 128+signal and no task appears later",
        arguments: [SIGINT, SIGTERM, SIGHUP])
    func stoppedWhileWaiting(signal: Int32) async throws {
        try await Self.withFixture { database, fixture in
            let member = try await fixture.service.user(fixture.member).email
            let title = "Added while stopped \(signal)"
            try await Self.holdingCounters(database, fixture, noTaskTitled: title) {
                try await Self.addStoppedWhileWaiting(database, fixture, member: member, title: title, signal: signal)
            }
        }
    }

    /// `stoppedWhileWaiting` while another session holds the counters.
    static func addStoppedWhileWaiting(
        _ database: TestDatabase, _ fixture: ContractFixture, member: String, title: String, signal: Int32
    ) async throws {
        let taskctl = try BuiltProgram.start(
            BuiltProgram.url("taskctl"), arguments: ["--as", member, "task", "add", "--team", fixture.team.rawValue, title],
            environment: BuiltProgram.environment(adding: ["DATABASE_URL": database.url]))
        try await waitUntil("task add to wait for the counter lock") { try await database.lockWaiters() == 1 }
        kill(taskctl.processIdentifier, signal)
        let outcome = try await taskctl.finish(within: .seconds(20))
        #expect(!outcome.killedBySignal, "\(outcome)")
        #expect(outcome.exitCode == 128 + signal, "\(outcome)")
        #expect(outcome.standardError.contains("interrupted by ") && outcome.standardError.contains("statement was cancelled"), "\(outcome)")
        #expect(!outcome.standardError.contains("57014"), "\(outcome)")
        // The lock wait ended with the program: nothing is left queued behind our lock.
        #expect(try await database.lockWaiters() == 0)
    }

    /// Runs `body` on a new migrated database with the contract's fixture in it.
    static func withFixture(_ body: (TestDatabase, ContractFixture) async throws -> Void) async throws {
        try await TestDatabase.with(migrated: true, purpose: "reliability") { database in
            try await body(
                database, try await ContractFixture.make(store: try await PostgresTaskStore.open(config: database.config, maxConnections: 2)))
        }
    }

    /// Runs `body` while another session holds every team's task counter, which each write
    /// locks first; then lets go and checks, a second later, that no task titled `title` was
    /// committed after all.
    static func holdingCounters(
        _ database: TestDatabase, _ fixture: ContractFixture, noTaskTitled title: String, _ body: () async throws -> Void
    ) async throws {
        let blocker = try await database.holding("LOCK TABLE task_counters IN EXCLUSIVE MODE")
        defer { Task { await blocker.close() } }
        try await body()
        try await blocker.execute("COMMIT")
        try await Task.sleep(for: .seconds(1))
        #expect(try await fixture.allTasks().filter { $0.title == title }.isEmpty)
    }

    /// Starts `program` and signals it as soon as /proc shows it has taken the signal over (its
    /// early handlers, before its libraries start; before, the runtime's own blocking): while it
    /// is still starting, before its command has begun. Returns how it ended.
    static func signalledAtOnce(_ program: String, _ arguments: [String], _ signal: Int32, environment: [String: String]) async throws -> ProgramRun {
        let running = try BuiltProgram.start(
            BuiltProgram.url(program), arguments: arguments, environment: BuiltProgram.environment(adding: environment))
        try await waitUntil("\(program) to take signal \(signal) over", every: .microseconds(200)) { running.takesOver(signal) }
        running.send(signal)
        return try await running.finish(within: .seconds(20))
    }

    /// How each signal is named in the line a stopped program prints.
    static let names = [SIGINT: "SIGINT", SIGTERM: "SIGTERM", SIGHUP: "SIGHUP"]

    @Test(
        "taskctl watch signalled the moment it starts exits 0 without a word, as a watch stopped later does, every time",
        arguments: [SIGINT, SIGTERM, SIGHUP])
    func watchStoppedAtOnce(signal: Int32) async throws {
        try await Self.withFixture { database, fixture in
            let viewer = try await fixture.service.user(fixture.viewer).email
            for _ in 0..<7 {
                let outcome = try await Self.signalledAtOnce(
                    "taskctl", ["--as", viewer, "watch", "--team", fixture.team.rawValue], signal, environment: ["DATABASE_URL": database.url])
                #expect(!outcome.killedBySignal && outcome.exitCode == 0, "\(outcome)")
                #expect(!outcome.standardError.contains("error"), "\(outcome)")
            }
        }
    }

    @Test(
        "taskimport signalled the moment it starts exits 128+signal with a line saying it was interrupted, and imports nothing, every time",
        arguments: [SIGINT, SIGTERM, SIGHUP])
    func importStoppedAtOnce(signal: Int32) async throws {
        try await Self.withFixture { database, fixture in
            let member = try await fixture.service.user(fixture.member).email
            let folder = try scratchFolder("signalled-import")
            defer { try? FileManager.default.removeItem(at: folder) }
            let input = folder.appendingPathComponent("input.csv")
            try "External ID,Title\nx-1,Imported while stopped\n".write(to: input, atomically: true, encoding: .utf8)
            // The counters are held, so an import that did begin cannot finish before the signal.
            try await Self.holdingCounters(database, fixture, noTaskTitled: "Imported while stopped") {
                for _ in 0..<7 {
                    let outcome = try await Self.signalledAtOnce(
                        "taskimport", [input.path, "--team", fixture.team.rawValue, "--as", member, "--no-progress"], signal,
                        environment: ["DATABASE_URL": database.url])
                    #expect(!outcome.killedBySignal && outcome.exitCode == 128 + signal, "\(outcome)")
                    let said = outcome.standardError.split(separator: "\n").last.map(String.init) ?? ""
                    #expect(said.hasPrefix("taskimport: error: interrupted") && said.contains(Self.names[signal] ?? "?"), "\(outcome)")
                }
            }
        }
    }

    @Test(
        "taskctl stopped while connecting to a database that never answers exits 130 at once, and names no statement it never ran",
        .timeLimit(.minutes(1)))
    func stoppedWhileConnecting() async throws {
        let silent = LoopbackSocket(listening: true)
        defer { silent.close() }
        let taskctl = try BuiltProgram.start(
            BuiltProgram.url("taskctl"), arguments: ["--as", "nobody@example.com", "team", "list"],
            environment: BuiltProgram.environment(adding: [
                "DATABASE_URL": "host=127.0.0.1 port=\(silent.port) dbname=none sslmode=disable connect_timeout=60"
            ]))
        try await waitUntil("taskctl to take SIGINT over") { taskctl.takesOver(SIGINT) }
        try await Task.sleep(for: .milliseconds(300))
        taskctl.send(SIGINT)
        // At once, not when the 60 s connect timeout has passed.
        let outcome = try await taskctl.finish(within: .seconds(30))
        #expect(!outcome.killedBySignal && outcome.exitCode == 128 + SIGINT, "\(outcome)")
        #expect(outcome.standardError.contains("interrupted by Ctrl-C (SIGINT): what it was doing was stopped"), "\(outcome)")
        #expect(!outcome.standardError.contains("the running statement was cancelled"), "\(outcome)")
    }
}
