import Foundation
import Migrations
import PGStore
import TaskCore
import TaskStoreContract
import TaskStorePG
import TaskbaseTestSupport
import Testing

@Suite("losing the server: restart, failover to a promoted streaming standby", .serialized, .timeLimit(.minutes(3)))
struct FailoverTests {
    /// Ports of the primary (a `scripts/pg` cluster of its own) and of its standby.
    static let primaryPort = ProcessInfo.processInfo.environment["TASKBASE_FAILOVER_PRIMARY_PORT"] ?? "25461"
    static let standbyPort = ProcessInfo.processInfo.environment["TASKBASE_STANDBY_PORT"] ?? "25462"
    static let environment = ["TASKBASE_PG_PORT": primaryPort, "TASKBASE_STANDBY_PORT": standbyPort]
    static let database = "reliability_failover"

    /// Runs `body` against the primary cluster, migrated, with a fresh `reliability_failover`
    /// database; stops the clusters afterwards whatever happened.
    static func withPrimary(_ body: (PGConfig) async throws -> Void) async throws {
        do {
            try await Scripts.run("pg", ["start"], environment: environment)
            var primary = try PGConfig(connectionString: try await Scripts.run("pg", ["url", database], environment: environment))
            // A cluster just started, in the busiest minute of the suite, once took over the
            // default 10 s to take a first connection: this bounds a hang, as the suite's own
            // URLs (connect_timeout=30, scripts/test) do.
            primary.connectTimeout = .seconds(30)
            try await TestDatabases.recreate(primary)
            _ = try await MigrationRunner(directory: MigrationDirectory(path: PackagePaths.migrations.path), config: primary).up()
            try await body(primary)
        } catch {
            await cleanUp()
            throw error
        }
        await cleanUp()
    }

    @Test("a pooled store survives a server restart: after `scripts/pg stop` and `start` the next call succeeds, nothing half-written")
    func serverRestart() async throws {
        try await Self.withPrimary { primary in
            let fixture = try await ContractFixture.make(store: try await PostgresTaskStore.open(config: primary, maxConnections: 2))
            let before = try await fixture.makeTask("Written before the restart")
            try await Scripts.run("pg", ["stop"], environment: Self.environment)
            let refused = await #expect(throws: PGError.self) { try await fixture.makeTask("Written while the server is down") }
            #expect(refused?.kind == .connection)
            try await Scripts.run("pg", ["start"], environment: Self.environment)
            let after = try await fixture.makeTask("Written after the restart")
            #expect(after.key.number == before.key.number + 1)
            let titles = try await fixture.allTasks().map(\.title)
            #expect(titles == [before.title, after.title])
        }
    }

    @Test(
        "taskctl across a server restart: a running watch ends with exit 3 and a clear error instead of hanging; commands exit 3 while the server is down and work once it is back"
    )
    func taskctlAcrossRestart() async throws {
        try await Self.withPrimary { primary in
            let fixture = try await ContractFixture.make(store: try await PostgresTaskStore.open(config: primary, maxConnections: 2))
            let viewer = try await fixture.service.user(fixture.viewer).email
            let taskctl = BuiltProgram.url("taskctl")
            let environment = ["DATABASE_URL": try TestDatabases.uri(primary), "TASKBASE_ACTOR": viewer]
            let list = ["task", "list", "--team", fixture.team.rawValue]
            #expect(try await BuiltProgram.run(taskctl, arguments: list, environment: BuiltProgram.environment(adding: environment)).exitCode == 0)

            let watch = try BuiltProgram.start(
                taskctl, arguments: ["watch", "--team", fixture.team.rawValue], environment: BuiltProgram.environment(adding: environment))
            try await waitUntil("taskctl watch to listen") {
                try await PGConnection.with(primary) { connection in
                    try await connection.query("SELECT count(*) AS n FROM pg_stat_activity WHERE query LIKE 'LISTEN %'")[0].decode(Int.self, "n") > 0
                }
            }
            try await Scripts.run("pg", ["stop"], environment: Self.environment)
            let watched = try await watch.finish(within: .seconds(20))
            #expect(watched.exitCode == 3 && !watched.killedBySignal, "\(watched)")
            let lines = watched.standardError.split(separator: "\n")
            #expect(lines.last?.hasPrefix("taskctl: error: lost the database connection") == true, "\(watched)")
            let stray = lines.filter { !$0.hasPrefix("taskctl: ") && !$0.hasPrefix("watching team ") }
            #expect(stray.isEmpty, "lines on stderr that are not taskctl's: \(stray)")

            let whileDown = try await BuiltProgram.run(taskctl, arguments: list, environment: BuiltProgram.environment(adding: environment))
            #expect(whileDown.exitCode == 3, "\(whileDown)")
            #expect(whileDown.standardError.split(separator: "\n").count == 1, "\(whileDown)")
            try await Scripts.run("pg", ["start"], environment: Self.environment)
            let afterwards = try await BuiltProgram.run(taskctl, arguments: list, environment: BuiltProgram.environment(adding: environment))
            #expect(afterwards.exitCode == 0, "\(afterwards)")
        }
    }

    @Test("after the primary stops and its standby is promoted, the next write through the same store succeeds on the new primary")
    func writeAfterPromotion() async throws {
        try await Self.withPrimary(Self.failover)
    }

    static func failover(_ primary: PGConfig) async throws {
        try await Scripts.run(
            "faults", ["standby", "create", try await Scripts.run("pg", ["url", Self.database], environment: environment)], environment: environment)

        // One configuration for the life of the store: both servers, writes to whichever is primary.
        var both = primary
        both["host"] = "127.0.0.1,127.0.0.1"
        both["port"] = "\(primaryPort),\(standbyPort)"
        both["target_session_attrs"] = "read-write"
        both.connectTimeout = .seconds(5)
        var standby = primary
        standby["port"] = standbyPort

        let store = try await PostgresTaskStore.open(config: both, maxConnections: 2)
        let fixture = try await ContractFixture.make(store: store)
        let before = try await fixture.makeTask("Written before the failover")
        #expect(try await Self.isInRecovery(standby))
        try await waitUntil("the standby to replay the first write") {
            try await Self.count(ofTitle: before.title, on: standby) == 1
        }

        try await Scripts.run("pg", ["stop"], environment: environment)
        try await Scripts.run("faults", ["standby", "promote"], environment: environment)
        #expect(try await Self.isInRecovery(standby) == false)

        let after = try await fixture.makeTask("Written after the failover")
        #expect(after.key.number == before.key.number + 1)
        #expect(try await fixture.service.task(before.key, as: fixture.viewer).title == before.title)
        #expect(try await Self.count(ofTitle: after.title, on: standby) == 1)
    }

    static func isInRecovery(_ config: PGConfig) async throws -> Bool {
        try await PGConnection.with(config) {
            try await $0.query("SELECT pg_is_in_recovery() AS recovering")[0].decode(Bool.self, "recovering")
        }
    }

    /// Tasks titled `title`, read as the superuser (row-level security does not apply).
    static func count(ofTitle title: String, on config: PGConfig) async throws -> Int {
        try await PGConnection.with(config) {
            try await $0.query("SELECT count(*) AS n FROM tasks WHERE title = \(title)")[0].decode(Int.self, "n")
        }
    }

    /// Stops both servers and deletes the standby, whatever state the test left them in.
    static func cleanUp() async {
        for (script, arguments) in [("faults", ["standby", "destroy"]), ("pg", ["stop"])] {
            do {
                try await Scripts.run(script, arguments, environment: environment)
            } catch {
                Issue.record("cleaning up: \(error)")
            }
        }
    }
}
