import Foundation
import PGStore
import TaskCore
import TaskStoreContract
import TaskStorePG
import TaskbaseTestSupport
import Testing

@Suite("every program runs under lock and statement timeouts and is noticed when it vanishes", .timeLimit(.minutes(3)))
struct SessionLimitTests {
    @Test("taskctl blocked by a lock gives up after its lock timeout (exit 5), naming the session that holds the lock")
    func lockTimeoutNamesTheBlocker() async throws {
        try await TestDatabase.with(migrated: true, purpose: "reliability") { database in
            let fixture = try await ContractFixture.make(store: try await PostgresTaskStore.open(config: database.config, maxConnections: 2))
            let member = try await fixture.service.user(fixture.member).email
            let blocker = try await database.holding("LOCK TABLE task_counters IN EXCLUSIVE MODE")
            defer { Task { await blocker.close() } }
            let started = ContinuousClock.now
            let outcome = try await BuiltProgram.run(
                BuiltProgram.url("taskctl"), arguments: ["--as", member, "task", "add", "--team", fixture.team.rawValue, "Blocked"],
                environment: BuiltProgram.environment(adding: ["DATABASE_URL": database.url, "TASKBASE_LOCK_TIMEOUT": "8s"]))
            let waited = ContinuousClock.now - started
            #expect(outcome.exitCode == 5, "\(outcome)")
            #expect(waited < .seconds(30), "\(waited)")
            #expect(outcome.standardError.contains("taskctl: note: waiting for a lock held by pid \(blocker.backendPID)"), "\(outcome)")
            #expect(outcome.standardError.contains("application the blocker"), "\(outcome)")
            #expect(
                outcome.standardError.contains("gave up waiting for a lock after lock_timeout (8s), held by pid \(blocker.backendPID)"), "\(outcome)")
            #expect(outcome.standardError.contains("ExclusiveLock on task_counters"), "\(outcome)")
            try await blocker.execute("ROLLBACK")
            #expect(try await fixture.allTasks().isEmpty)
        }
    }

    @Test("a statement over its statement timeout is said in words, with the limit and the option, not as ERROR 57014")
    func statementTimeoutInWords() async throws {
        try await TestDatabase.with(migrated: true, purpose: "reliability") { database in
            let fixture = try await ContractFixture.make(store: try await PostgresTaskStore.open(config: database.config, maxConnections: 2))
            let member = try await fixture.service.user(fixture.member).email
            // The statement waits on the lock; the statement timeout ends the wait long before the lock timeout.
            let blocker = try await database.holding("LOCK TABLE task_counters IN EXCLUSIVE MODE")
            defer { Task { await blocker.close() } }
            let outcome = try await BuiltProgram.run(
                BuiltProgram.url("taskctl"),
                arguments: ["--as", member, "task", "add", "--team", fixture.team.rawValue, "Slow", "--statement-timeout", "500ms"],
                environment: BuiltProgram.environment(adding: ["DATABASE_URL": database.url, "TASKBASE_LOCK_TIMEOUT": "1min"]))
            #expect(outcome.exitCode == 1, "\(outcome)")
            #expect(
                outcome.standardError.contains(
                    "the statement ran longer than statement_timeout (500ms) and was cancelled; nothing was changed; allow longer with --statement-timeout"
                ),
                "\(outcome)")
            #expect(!outcome.standardError.contains("57014"), "\(outcome)")
            try await blocker.execute("ROLLBACK")
            #expect(try await fixture.allTasks().isEmpty)
        }
    }

    @Test("on a database without the schema, taskctl says to check and apply the migrations")
    func missingSchemaSaysMigrate() async throws {
        try await TestDatabase.with(migrated: false, purpose: "reliability") { database in
            let outcome = try await BuiltProgram.run(
                BuiltProgram.url("taskctl"), arguments: ["--as", "ann@example.com", "task", "list", "--team", "CORE"],
                environment: BuiltProgram.environment(adding: ["DATABASE_URL": database.url]))
            #expect(outcome.exitCode == 1, "\(outcome)")
            #expect(outcome.standardError.contains("check with taskmigrate status, and apply what is pending with taskmigrate up"), "\(outcome)")
            #expect(!outcome.standardError.contains("explicit type casts"), "\(outcome)")
        }
    }

    @Test("the help of taskctl, taskimport and taskserve states the default timeouts and their variables, no limit as none")
    func helpStatesTheDefaults() async throws {
        for (program, lock, statement) in [("taskctl", "10s", "1min"), ("taskimport", "1min", "none"), ("taskserve", "10s", "30s")] {
            let help = try await BuiltProgram.run(
                BuiltProgram.url(program), arguments: ["--help"], environment: BuiltProgram.environment(adding: [:]))
            let text = help.standardOutput.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            #expect(text.contains("--lock-timeout DURATION"), "\(program): \(text)")
            #expect(text.contains("TASKBASE_LOCK_TIMEOUT") && text.contains("TASKBASE_STATEMENT_TIMEOUT"), "\(program)")
            #expect(text.contains("default: \(lock)") && text.contains("default: \(statement)"), "\(program): \(text)")
            #expect(!text.contains("default: 0ms"), "\(program): \(text)")
        }
    }

    @Test("taskimport killed with SIGKILL while its merge waits: the server notices within seconds and frees the team's counter lock")
    func killedImportStopsOnTheServer() async throws {
        try await TestDatabase.with(migrated: true, purpose: "reliability") { database in
            let fixture = try await ContractFixture.make(store: try await PostgresTaskStore.open(config: database.config, maxConnections: 2))
            let member = try await fixture.service.user(fixture.member).email
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("vanishing-import-\(UUID().uuidString).csv")
            try "External ID,Title\nv-1,One\nv-2,Two\n".write(to: file, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(at: file) }
            // The merge writes history: holding that table keeps the merge (and its counter lock) waiting.
            let blocker = try await database.holding("LOCK TABLE task_history IN EXCLUSIVE MODE")
            defer { Task { await blocker.close() } }
            let importer = try BuiltProgram.start(
                BuiltProgram.url("taskimport"), arguments: [file.path, "--team", fixture.team.rawValue, "--as", member, "--no-progress"],
                environment: BuiltProgram.environment(adding: ["DATABASE_URL": database.url]))
            try await waitUntil("the merge to wait for the history table", limit: .seconds(60)) {
                try await database.lockWaiters(running: "WITH staged%") == 1
            }
            kill(importer.processIdentifier, SIGKILL)
            _ = await importer.finish()
            let killed = ContinuousClock.now
            // The server checks every 2 s (client_connection_check_interval) that the client is
            // still there; without that the backend would wait for the blocker, held until the
            // end of this test, whatever the limit. 20 s, not 8: a CI run with the whole suite on
            // two cores once took 8.15 s.
            try await waitUntil("the killed import's backend to end", limit: .seconds(20)) {
                try await database.lockWaiters() == 0
            }
            #expect(ContinuousClock.now - killed < .seconds(20))
            let counterFree = try await database.withConnection { connection in
                try await connection.withTransaction { tx in
                    try await tx.query("SELECT last_number FROM task_counters FOR UPDATE NOWAIT").count
                }
            }
            #expect(counterFree >= 1)
            try await blocker.execute("ROLLBACK")
        }
    }
}

@Suite("scripts/pg beside another checkout's cluster")
struct PortTakenTests {
    @Test("when another server holds the port, scripts/pg start says so and names TASKBASE_PG_PORT with a free port (exit 3)")
    func portTaken() async throws {
        let other = try PasswordTrap()
        defer { other.stop() }
        let outcome = try await BuiltProgram.run(
            PackagePaths.script("pg"), arguments: ["start"], environment: BuiltProgram.environment(adding: ["TASKBASE_PG_PORT": String(other.port)]))
        #expect(outcome.exitCode == 3, "\(outcome)")
        #expect(outcome.standardError.contains("port \(other.port) on 127.0.0.1 is taken by another server"), "\(outcome)")
        #expect(outcome.standardError.contains("TASKBASE_PG_PORT="), "\(outcome)")
        #expect(!FileManager.default.fileExists(atPath: PackagePaths.root.appendingPathComponent(".local/pg-\(other.port)").path))
    }
}
