import Foundation
import PGStore
import TaskCore
import TaskStoreContract
import TaskStorePG
import TaskbaseTestSupport
import Testing

/// PgBouncer in transaction pooling mode, started by `scripts/faults pgbouncer` (which the
/// taskctl end-to-end suite can use as well: `scripts/faults pgbouncer run -- COMMAND`).
enum PgBouncerHarness {
    static let port = ProcessInfo.processInfo.environment["TASKBASE_PGBOUNCER_PORT"] ?? "25463"
    static let environment = ["TASKBASE_PGBOUNCER_PORT": port]

    /// Whether PgBouncer is installed, or could be installed now (root with apt).
    static func available() async -> Bool {
        (try? await Scripts.run("faults", ["pgbouncer", "install"], environment: environment)) != nil
    }

    /// Runs `body` with a config that reaches `database` through PgBouncer, with the
    /// statement cache off; stops PgBouncer afterwards.
    static func through<T>(_ database: TestDatabase, _ body: (PGConfig) async throws -> T) async throws -> T {
        var config = try PGConfig(
            connectionString: try await Scripts.run("faults", ["pgbouncer", "start", database.url], environment: environment))
        config.statementCacheSize = 0
        do {
            let value = try await body(config)
            try await Scripts.run("faults", ["pgbouncer", "stop"], environment: environment)
            return value
        } catch {
            _ = try? await Scripts.run("faults", ["pgbouncer", "stop"], environment: environment)
            throw error
        }
    }
}

/// Serialized: its tests share the one PgBouncer on `PgBouncerHarness.port`, and
/// `scripts/faults pgbouncer start` stops a running one first (a PAUSE that holds new
/// connections, then a restart), as `stop` ends it: run side by side, one test's start or stop
/// cut the other's connections ("could not connect ... within 10.0 seconds" in a CI run).
@Suite("through PgBouncer in transaction pooling mode", .serialized, .timeLimit(.minutes(3)))
struct PgBouncerTests {
    @Test(
        "the store contract holds through PgBouncer in transaction mode with the statement cache off, the change feed listening on a direct connection",
        .enabled("PgBouncer is not installed and cannot be installed here (needs root and apt-get)") { await PgBouncerHarness.available() })
    func storeContract() async throws {
        try await TestDatabase.with(migrated: true, purpose: "reliability") { database in
            try await PgBouncerHarness.through(database) { config in
                let direct = try PGConfig(connectionString: database.url)
                // Every check runs at once, as over a direct connection.
                let store = try await PostgresTaskStore.open(
                    config: config, maxConnections: TaskStoreContract.concurrentRunConnections, listenConfig: direct,
                    acquireTimeout: TaskStoreContract.concurrentRunAcquireTimeout)
                #expect(try await Self.serverPort(config) != Int(PgBouncerHarness.port))
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for check in TaskStoreContract.checks {
                        group.addTask {
                            do {
                                try await check.run(against: store)
                            } catch {
                                Issue.record("\(check.name): \(error)")
                            }
                        }
                    }
                    try await group.waitForAll()
                }
            }
        }
    }

    @Test(
        "pipelines sharing round trips through PgBouncer each get their own results and their own transaction",
        .enabled("PgBouncer is not installed and cannot be installed here (needs root and apt-get)") { await PgBouncerHarness.available() })
    func sharedRoundTrips() async throws {
        try await TestDatabase.with(migrated: false, purpose: "reliability") { database in
            try await PgBouncerHarness.through(database) { config in
                let pool = PGPool(config: config, options: PGPoolOptions(maxConnections: 2))
                // 32 callers over 2 connections: most pipelines wait and are sent with others. Each
                // sets a transaction-local value and reads it back; a pipeline that leaked into
                // another's transaction, or got another's results, would read the wrong value.
                let mismatches = try await withThrowingTaskGroup(of: Int.self) { group in
                    for client in 0..<32 {
                        group.addTask {
                            var wrong = 0
                            for round in 0..<20 {
                                let value = "\(client)-\(round)"
                                let results = try await pool.pipeline([
                                    "SELECT set_config('taskbase.probe', \(value), true)",
                                    "SELECT current_setting('taskbase.probe') AS value",
                                ])
                                if try results[1].get()[0].decode(String.self, "value") != value { wrong += 1 }
                            }
                            return wrong
                        }
                    }
                    return try await group.reduce(0, +)
                }
                #expect(mismatches == 0)
                #expect(pool.statistics.servedPipelines > 0)
                // Transaction-local: nothing is left on the sessions afterwards.
                let left = try await pool.pipeline(["SELECT current_setting('taskbase.probe', true) AS value"])
                #expect(try left[0].get()[0].decode(String?.self, "value") ?? "" == "")
                await pool.shutdown()
            }
        }
    }

    /// The port the PostgreSQL server behind `config` listens on (PgBouncer's own differs).
    static func serverPort(_ config: PGConfig) async throws -> Int {
        try await PGConnection.with(config) {
            try await $0.query("SELECT inet_server_port() AS port")[0].decode(Int.self, "port")
        }
    }
}
