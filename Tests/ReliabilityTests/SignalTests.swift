import Foundation
import PGStore
import TaskCore
import TaskStoreContract
import TaskStorePG
import TaskbaseTestSupport
import Testing

@Suite("programs stopped by a signal commit nothing afterwards", .timeLimit(.minutes(3)))
struct SignalTests {
    /// Sessions of this database (other than ours) that wait for a lock.
    static func lockWaiters(_ database: TestDatabase) async throws -> Int {
        try await database.withConnection { connection in
            try await connection.query(
                """
                SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
                   AND wait_event_type = 'Lock'
                """)[0].decode(Int.self, "n")
        }
    }

    @Test(
        "taskctl task add waiting on a lock, stopped by Ctrl-C (SIGINT), SIGTERM or SIGHUP, cancels its statement, exits 128+signal and no task appears later",
        arguments: [SIGINT, SIGTERM, SIGHUP])
    func stoppedWhileWaiting(signal: Int32) async throws {
        try await TestDatabase.with(migrated: true, purpose: "reliability") { database in
            let fixture = try await ContractFixture.make(store: try await PostgresTaskStore.open(config: database.config, maxConnections: 2))
            let member = try await fixture.service.user(fixture.member).email
            let title = "Added while stopped \(signal)"
            let blocker = try await PGConnection.connect(database.config)
            defer { Task { await blocker.close() } }
            try await blocker.execute("BEGIN")
            try await blocker.execute("LOCK TABLE task_counters IN EXCLUSIVE MODE")

            let taskctl = try BuiltProgram.start(
                BuiltProgram.url("taskctl"), arguments: ["--as", member, "task", "add", "--team", fixture.team.rawValue, title],
                environment: BuiltProgram.environment(adding: ["DATABASE_URL": database.url]))
            try await waitUntil("task add to wait for the counter lock") { try await Self.lockWaiters(database) == 1 }
            kill(taskctl.processIdentifier, signal)
            let outcome = try await taskctl.finish(within: .seconds(20))
            #expect(!outcome.killedBySignal, "\(outcome)")
            #expect(outcome.exitCode == 128 + signal, "\(outcome)")
            #expect(outcome.standardError.contains("interrupted by ") && outcome.standardError.contains("statement was cancelled"), "\(outcome)")
            #expect(!outcome.standardError.contains("57014"), "\(outcome)")
            // The lock wait ended with the program: nothing is left queued behind our lock.
            #expect(try await Self.lockWaiters(database) == 0)

            try await blocker.execute("COMMIT")
            try await Task.sleep(for: .seconds(1))
            #expect(try await fixture.allTasks().filter { $0.title == title }.isEmpty)
        }
    }
}
