import Foundation
import PGStore
import TaskCore
import TaskStorePG
import TaskbaseServer
import TaskbaseTestSupport
import TaskbaseWire
import Testing

/// Counts the statements the server sends PostgreSQL: a scratch database of its own with
/// `log_statement = all`, its lines read back from the cluster's log (`server.log` in the data
/// directory). Every such database writes to that one log, so one test at a time counts
/// (`with`); suites run in parallel, and two counting at once counted each other's statements.
struct StatementLog {
    let database: TestDatabase
    let admin: PGConfig

    /// Whose turn it is to count: one test at a time, the others waiting in line.
    static let turn = OneAtATime()

    /// Runs `body` with statement logging on for `database`, once no other test is counting.
    static func with<T>(_ database: TestDatabase, _ body: (StatementLog) async throws -> T) async throws -> T {
        try await turn.run { try await body(try await on(database)) }
    }

    /// Turns statement logging on for `database` (connections opened afterwards log).
    private static func on(_ database: TestDatabase) async throws -> StatementLog {
        let admin = try TestDatabases.admin()
        try await TestDatabases.execute(
            PGQuery(unsafeSQL: "ALTER DATABASE \(PGQuery.quoteIdentifier(database.name)) SET log_statement = 'all'"), on: admin)
        return StatementLog(database: database, admin: admin)
    }

    /// Why statements cannot be counted here.
    struct NoServerLog: Error, CustomStringConvertible {
        var description: String {
            "TaskReadCostTests: the cluster has no server.log in its data directory; run it on scripts/pg's cluster (scripts/test) as a superuser"
        }
    }

    /// The log's size now: where the next statements will start.
    func mark() async throws -> Int64 {
        let size = try await PGConnection.with(admin) { connection in
            try await connection.query("SELECT (pg_stat_file('server.log', true)).size AS size")[0].decode(Int64?.self, "size")
        }
        guard let size else { throw NoServerLog() }
        return size
    }

    /// The statements logged since `mark` (one per simple query or extended-protocol execute).
    func statements(since mark: Int64) async throws -> [String] {
        let text = try await PGConnection.with(admin) { connection in
            try await connection.query("SELECT pg_read_file('server.log', \(mark), 1048576) AS text")[0].decode(String.self, "text")
        }
        return text.split(separator: "\n").filter { $0.contains("LOG:  statement: ") || $0.contains("LOG:  execute ") }.map(String.init)
    }

    /// The fewest statements one run of `body` costs over `runs` runs (background work, such as
    /// recording a token's use, can fall into a run; it cannot fall into all of them).
    func fewest(runs: Int = 3, _ body: () async throws -> Void) async throws -> (count: Int, statements: [String]) {
        var best: [String]?
        for _ in 0..<runs {
            let start = try await mark()
            try await body()
            let logged = try await statements(since: start)
            if best == nil || logged.count < best!.count { best = logged }
        }
        return (best!.count, best!)
    }
}

@Suite("What a task read costs the database through the HTTP API")
struct TaskReadCostTests {
    @Test("GET /v1/tasks/{key} sends PostgreSQL as many statements as the in-process point read, once warm")
    func getCostsWhatThePointReadCosts() async throws {
        try await TestDatabase.with(migrated: true, purpose: "read cost") { database in
            try await StatementLog.with(database) { log in
                let store = try await PostgresTaskStore.open(config: database.config, maxConnections: 4)
                let f = try await ServerFixture.start(store: store)
                let task = try await f.service.createTask(
                    in: f.team, try TaskDraft(title: "Counted", assignee: .id(f.viewer.id)), as: .id(f.member.id))
                let viewer = f.client("viewer")
                // Warm: the token verified and cached, the team's people known.
                for _ in 0..<3 { #expect(try await viewer.get("/v1/tasks/\(task.key)").status == 200) }
                try await Task.sleep(for: .milliseconds(200))

                let inProcess = try await log.fewest { _ = try await f.service.task(task.key, as: .id(f.viewer.id)) }
                let overHTTP = try await log.fewest {
                    let read = try await viewer.get("/v1/tasks/\(task.key)")
                    #expect(read.status == 200)
                    #expect(try read.decode(TaskDocument.self).assignee.value == f.viewer.email)
                }
                // The point read: the actor's settings and the read, pipelined in one round trip.
                #expect(inProcess.count == 2, "\(inProcess.statements)")
                #expect(overHTTP.count == inProcess.count, "GET sent \(overHTTP.count) statements: \(overHTTP.statements)")

                // The same server without the directory cache: what every GET cost before it.
                let uncached = try f.server(directoryTTL: .zero)
                let uncachedViewer = f.client("viewer", of: uncached)
                for _ in 0..<3 { #expect(try await uncachedViewer.get("/v1/tasks/\(task.key)").status == 200) }
                let without = try await log.fewest { _ = try await uncachedViewer.get("/v1/tasks/\(task.key)") }
                #expect(without.count > overHTTP.count, "without the cache a GET sent \(without.count) statements: \(without.statements)")
                print(
                    "GET /v1/tasks/{key}: \(overHTTP.count) statement(s) with the directory cache, \(without.count) without; in-process read \(inProcess.count)"
                )
                print(without.statements.joined(separator: "\n"))
                await uncached.shutdown(grace: .seconds(2))
                await f.stop()
            }
        }
    }
}
