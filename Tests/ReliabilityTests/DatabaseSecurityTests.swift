import Foundation
import Synchronization
import PGStore
import TaskCore
import TaskStoreContract
import TaskStorePG
import TaskbaseTestSupport
import Testing

/// Issue #16, tried as an attacker holding the runtime login would (the credentials every app
/// server has), directly in SQL: row-level security must still keep every team's rows from
/// everyone outside it.
@Suite("the database holds against the runtime login", .timeLimit(.minutes(5)))
struct DatabaseSecurityTests {
    /// Every table row-level security guards.
    static let tenantTables = ["teams", "memberships", "task_counters", "tasks", "task_history", "task_changes"]

    /// A migrated scratch database with the contract's cast and team (written through the store,
    /// as the test's superuser login, under `taskbase_app`), and a runtime login for the attacker.
    static func withStage(_ body: (ContractFixture, PGConfig) async throws -> Void) async throws {
        try await ScratchDatabase.with(migrated: true) { database in
            let fixture = try await ContractFixture.make(store: try await PostgresTaskStore.open(config: database.config, maxConnections: 2))
            let task = try await fixture.makeTask("Secret")
            _ = try await fixture.service.completeTask(task.key, as: fixture.member)
            try await TestLogin.with(memberOf: ["taskbase_app"]) { login in
                try await body(fixture, login.config(for: database.config))
            }
        }
    }

    /// What `userID` reaches of team `team` as the runtime role: rows of every tenant table,
    /// and rows an UPDATE of the team's tasks touches (rolled back).
    static func reach(of userID: UserID, team teamID: TeamID, on connection: PGConnection) async throws -> [String: Int] {
        var reached: [String: Int] = [:]
        _ = try await connection.simpleQuery(unsafeSQL: "BEGIN; SET LOCAL ROLE taskbase_app")
        _ = try await connection.query("SELECT set_config('taskbase.user_id', \(String(userID.rawValue)), true)")
        // The team's id as the database's owner knows it: the attacker cannot see it to look it up.
        for table in tenantTables {
            let column = table == "teams" ? "id" : "team_id"
            let rows = try await connection.query(
                "SELECT count(*) AS n FROM \(unsafeSQL: "public." + table) WHERE \(unsafeSQL: column) = \(teamID.rawValue)")
            reached[table] = try rows[0].decode(Int.self, "n")
        }
        reached["tasks updated"] = try await connection.execute("UPDATE public.tasks SET title = 'pwned'")
        _ = try await connection.execute("ROLLBACK")
        return reached
    }

    @Test(
        "temporary tables shadowing what the SECURITY DEFINER function reads give an outsider zero rows of any team",
        arguments: [["memberships", "users", "teams"], ["memberships"], ["users"], ["teams"]])
    func temporaryTablesCannotShadow(shadowed: [String]) async throws {
        try await Self.withStage { f, runtime in
            // Shadowing only users can only lift the disabled flag: the attacker is then the
            // disabled owner; otherwise an outsider who claims every team.
            let attacker = try await f.service.user(shadowed == ["users"] ? f.disabled : f.outsider).id
            try await ScratchDatabase.withConnection(to: runtime) { connection in
                let tables = [
                    "memberships": "CREATE TEMP TABLE memberships (team_id bigint, user_id bigint, role text, created_at timestamptz)",
                    "users": "CREATE TEMP TABLE users (id bigint, email text, display_name text, disabled bool, created_at timestamptz)",
                    "teams": "CREATE TEMP TABLE teams (id bigint, key text, name text, created_by bigint, created_at timestamptz)",
                ]
                let id = attacker.rawValue
                let fill = [
                    "memberships": "INSERT INTO pg_temp.memberships SELECT n, \(id), 'owner', now() FROM generate_series(1, 10000) n",
                    "users": "INSERT INTO pg_temp.users VALUES (\(id), 'x@example.com', 'X', false, now())",
                    "teams": "INSERT INTO pg_temp.teams SELECT n, 'T' || n, 'x', \(id), now() FROM generate_series(1, 10000) n",
                ]
                for table in shadowed {
                    _ = try await connection.simpleQuery(
                        unsafeSQL: "\(tables[table]!); \(fill[table]!); GRANT SELECT ON pg_temp.\(table) TO PUBLIC")
                }
                let reached = try await Self.reach(of: attacker, team: try await f.service.team(f.team, as: f.owner).team.id, on: connection)
                #expect(reached.values.allSatisfy { $0 == 0 }, "\(shadowed) shadowed: \(reached)")
            }
            #expect(try await f.service.listTasks(in: f.team, as: f.viewer).tasks.map(\.title) == ["Secret"])
        }
    }

    @Test("every SECURITY DEFINER function pins search_path with pg_temp last")
    func definersPinTheirPath() async throws {
        let config = try await TestDatabases.shared.value
        try await ScratchDatabase.withConnection(to: config) { connection in
            let rows = try await connection.query(
                """
                SELECT p.oid::regprocedure::text AS name, coalesce(array_to_string(p.proconfig, ','), '') AS config
                  FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                 WHERE p.prosecdef AND n.nspname = 'public'
                """)
            #expect(!rows.isEmpty)
            for row in rows {
                let name = try row.decode(String.self, "name"), config = try row.decode(String.self, "config")
                #expect(config.hasPrefix("search_path=pg_catalog, public") && config.hasSuffix("pg_temp"), "\(name): \(config)")
            }
        }
    }
}

/// The change feed is a doorbell over the log: what arrives on a channel is never trusted.
@Suite("the change feed against forged notifications", .timeLimit(.minutes(3)))
struct ChangeFeedForgeryTests {
    @Test("forged and junk notifications from a login with no grants reach no watcher, cost at most a read each, and end nothing")
    func forgedNotifications() async throws {
        try await ScratchDatabase.with(migrated: true) { database in
            let reads = Mutex(0)
            let store = try await PostgresTaskStore.open(
                config: database.config, maxConnections: 2,
                statementObserver: { statements in
                    if statements.contains(where: { $0.sql.contains("FROM task_changes e0") }) { reads.withLock { $0 += 1 } }
                })
            let f = try await ContractFixture.make(store: store)
            var events = try await f.service.changes(in: f.team, as: f.viewer).makeAsyncIterator()
            let readsBefore = reads.withLock { $0 }
            let channel = "taskbase.team.\(f.team)"
            let forgeries = 50
            try await TestLogin.with { nobody in
                try await ScratchDatabase.withConnection(to: nobody.config(for: database.config)) { connection in
                    let forged = #"{"kind":"deleted","team":"\#(f.team)","number":1,"taskID":1,"version":99,"actorID":1,"at":0}"#
                    _ = try await connection.query("SELECT pg_notify(\(channel), \(forged))")
                    _ = try await connection.query("SELECT pg_notify(\(channel), 'not json {')")
                    for index in 2..<forgeries { _ = try await connection.query("SELECT pg_notify(\(channel), \(String(index)))") }
                }
            }
            let real = try await f.makeTask("Real")
            guard case .change(let change)? = try await events.next() else { Issue.record("the feed ended"); return }
            #expect(change.key == real.key && change.kind == .created && change.version == 1)
            #expect(reads.withLock { $0 } - readsBefore <= forgeries + 1)
            let later = try await f.makeTask("Later")
            guard case .change(let next)? = try await events.next() else { Issue.record("the feed ended"); return }
            #expect(next.key == later.key && next.sequence == change.sequence + 1)
        }
    }

    @Test("a login with no grants that LISTENs on a team's channel learns only that something changed")
    func listenersLearnNothing() async throws {
        try await ScratchDatabase.with(migrated: true) { database in
            let f = try await ContractFixture.make(store: try await PostgresTaskStore.open(config: database.config, maxConnections: 2))
            try await TestLogin.with { nobody in
                let connection = try await PGConnection.connect(nobody.config(for: database.config))
                var heard = try await connection.notifications(on: "taskbase.team.\(f.team)").makeAsyncIterator()
                try await f.makeTask("Private title")
                let notification = try await heard.next()
                #expect(notification?.payload == "")
                await connection.close()
            }
        }
    }
}
