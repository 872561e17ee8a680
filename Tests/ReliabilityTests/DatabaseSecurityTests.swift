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

    /// The contract's cast and a team of their own in the shared test database (written through
    /// the store, as the test's superuser login, under `taskbase_app`), and a runtime login for
    /// the attacker.
    static func withStage(_ body: (ContractFixture, PGConfig) async throws -> Void) async throws {
        let database = try await TestDatabases.shared.value
        let fixture = try await ContractFixture.make(store: try await PostgresTaskStore.open(config: database, maxConnections: 2))
        let task = try await fixture.makeTask("Secret")
        _ = try await fixture.service.completeTask(task.key, as: fixture.member)
        try await TestLogin.with(memberOf: ["taskbase_app"]) { login in
            try await body(fixture, login.config(for: database))
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
            try await PGConnection.with(runtime) { connection in
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
        try await PGConnection.with(config) { connection in
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
    /// Counts a store's reads of the change log.
    final class Reads: Sendable {
        let count = Mutex(0)
        var value: Int { count.withLock { $0 } }
    }

    /// A fixture over a store of its own whose reads of the change log are counted.
    static func countingReads(_ database: PGConfig) async throws -> (f: ContractFixture, reads: Reads) {
        let reads = Reads()
        let store = try await PostgresTaskStore.open(
            config: database, maxConnections: 2,
            statementObserver: { statements in
                if statements.contains(where: { $0.sql.contains("FROM task_changes e0") }) { reads.count.withLock { $0 += 1 } }
            })
        return (try await ContractFixture.make(store: store), reads)
    }

    @Test("forged and junk notifications from a login with no grants reach no watcher, cost at most a read each, and end nothing")
    func forgedNotifications() async throws {
        let database = try await TestDatabases.shared.value
        do {
            let (f, reads) = try await Self.countingReads(database)
            var events = try await f.service.changes(in: f.team, as: f.viewer).makeAsyncIterator()
            let readsBefore = reads.value
            let channel = "taskbase.team.\(f.team)"
            let forgeries = 50
            try await TestLogin.with { nobody in
                try await PGConnection.with(nobody.config(for: database)) { connection in
                    let forged = #"{"kind":"deleted","team":"\#(f.team)","number":1,"taskID":1,"version":99,"actorID":1,"at":0}"#
                    _ = try await connection.query("SELECT pg_notify(\(channel), \(forged))")
                    _ = try await connection.query("SELECT pg_notify(\(channel), 'not json {')")
                    for index in 2..<forgeries { _ = try await connection.query("SELECT pg_notify(\(channel), \(String(index)))") }
                }
            }
            let real = try await f.makeTask("Real")
            guard case .change(let change)? = try await events.next() else { Issue.record("the feed ended"); return }
            #expect(change.key == real.key && change.kind == .created && change.version == 1)
            #expect(reads.value - readsBefore <= forgeries + 1)
            let later = try await f.makeTask("Later")
            guard case .change(let next)? = try await events.next() else { Issue.record("the feed ended"); return }
            #expect(next.key == later.key && next.sequence == change.sequence + 1)
        }
    }

    @Test("a flood of forged notifications from the runtime login costs a watcher at most a read per ring spacing")
    func forgedFlood() async throws {
        let database = try await TestDatabases.shared.value
        let (f, reads) = try await Self.countingReads(database)
        var events = try await f.service.changes(in: f.team, as: f.viewer).makeAsyncIterator()
        let readsBefore = reads.value
        let started = ContinuousClock.now
        try await RuntimeRoleSQL.flood("taskbase.team.\(f.team)", in: database, for: .seconds(2))
        let real = try await f.makeTask("Real")
        guard case .change(let change)? = try await events.next() else { Issue.record("the feed ended"); return }
        #expect(change.key == real.key)
        // One read per ring acted on, at most one ring per spacing (the first at once), and the
        // reads the start and the real change may add.
        let allowed = ChangeLogFollower.ringPace.mostRings(in: ContinuousClock.now - started) + 3
        #expect(reads.value - readsBefore <= allowed, "\(reads.value - readsBefore) reads")
    }

    @Test("a login with no grants that LISTENs on a team's channel learns only that something changed")
    func listenersLearnNothing() async throws {
        let database = try await TestDatabases.shared.value
        do {
            let f = try await ContractFixture.make(store: try await PostgresTaskStore.open(config: database, maxConnections: 2))
            try await TestLogin.with { nobody in
                let connection = try await PGConnection.connect(nobody.config(for: database))
                var heard = try await connection.notifications(on: "taskbase.team.\(f.team)").makeAsyncIterator()
                try await f.makeTask("Private title")
                let notification = try await heard.next()
                #expect(notification?.payload == "")
                await connection.close()
            }
        }
    }
}

/// The checks the runtime role is held to (0023, 0028, 0032, 0034) leave the schema's owners a
/// data-only restore, as docs/security.md promises.
@Suite("a data-only restore into a freshly migrated database", .timeLimit(.minutes(3)))
struct DataOnlyRestoreTests {
    @Test("pg_dump --data-only into a freshly migrated database, one table at a time, keeps every row, and the teams write on")
    func dataOnlyRestore() async throws {
        try await TestDatabase.with(migrated: true, purpose: "restore_from") { source in
            let f = try await ContractFixture.make(store: try await PostgresTaskStore.open(config: source.config, maxConnections: 2))
            let task = try await f.makeTask("Restored")
            _ = try await f.service.updateTask(task.key, try TaskChanges(title: "Restored, edited"), expectedVersion: 1, as: f.member)
            let gone = try await f.makeTask("Deleted before the dump")
            try await f.service.deleteTask(gone.key, expectedVersion: 1, as: f.owner)
            let tables = ["tasks", "task_changes", "task_history", "task_counters", "memberships", "teams", "users"]
            func counts(_ database: TestDatabase) async throws -> [Int] {
                try await database.withConnection { connection in
                    var counts: [Int] = []
                    for table in tables {
                        counts.append(
                            try await connection.query(PGQuery(unsafeSQL: "SELECT count(*) AS n FROM public.\(table)"))[0].decode(Int.self, "n"))
                    }
                    return counts
                }
            }
            try await TestDatabase.with(migrated: true, purpose: "restore_into") { target in
                // psql without --single-transaction: each table's COPY commits on its own, in
                // pg_dump's order (task_changes before task_counters).
                // Not Process.waitUntilExit: that blocked one of the two cooperative threads the
                // whole test process shares for the restore's seconds, and other suites' waits
                // (a connection, a lock, a shutdown) ran past their bounds.
                let restore = try await BuiltProgram.run(
                    URL(fileURLWithPath: "/bin/bash"),
                    arguments: [
                        "-c",
                        """
                        set -o pipefail
                        dump=pg_dump
                        for bin in /usr/lib/postgresql/*/bin; do [ -x "$bin/pg_dump" ] && dump="$bin/pg_dump"; done
                        "$dump" --data-only --exclude-table=schema_migrations "$1" | psql -X -q -v ON_ERROR_STOP=1 "$2"
                        """,
                        "restore", source.url, target.url,
                    ], environment: ProcessInfo.processInfo.environment)
                let said = restore.standardError
                #expect(restore.exitCode == 0 && !restore.killedBySignal, "\(restore)")
                #expect(try await counts(target) == (try await counts(source)), "\(said)")
                // The restored team writes on: the next number and change follow the restored ones.
                let restored = TaskService(store: try await PostgresTaskStore.open(config: target.config, maxConnections: 2))
                let next = try await restored.createTask(in: f.team, try TaskDraft(title: "After the restore"), as: f.member)
                #expect(next.key.number == gone.key.number + 1)
                #expect(try await restored.history(of: task.key, as: f.member).count == 2)
            }
        }
    }
}

/// Issue #16 (3): the policies are the role model, checked by the database itself.
@Suite("row-level security matches the role model, tried directly in SQL", .timeLimit(.minutes(3)))
struct RoleModelPolicyTests {
    /// The ids a probe's SQL names.
    struct Stage: Sendable {
        var team: Int64
        var viewer: Int64
        var disabledOwner: Int64
        var outsider: Int64
        var stranger: Int64
        var strangerEmail: String
        var taskID: Int64
    }

    /// One statement tried as each actor: allowed when it runs and reaches at least one row.
    struct Probe: Sendable {
        var name: String
        var sql: @Sendable (Stage, Int64) -> PGQuery
        var allowed: @Sendable (Role?) -> Bool
    }

    /// Adds `user` with `role` to the stage's team, naming the stranger's address as the one added.
    static func addingByTheStrangersAddress(_ s: Stage, user: Int64, role: String) -> PGQuery {
        """
        WITH named AS (SELECT set_config('taskbase.member_email', \(s.strangerEmail), true))
        INSERT INTO memberships (team_id, user_id, role) SELECT \(s.team), \(user), \(role) FROM named
        """
    }

    static let anyMember: @Sendable (Role?) -> Bool = { $0 != nil }
    static func atLeast(_ least: Role) -> @Sendable (Role?) -> Bool { { role in role.map { $0 >= least } ?? false } }
    static let nobody: @Sendable (Role?) -> Bool = { _ in false }

    static let probes: [Probe] = [
        Probe(name: "read teams", sql: { s, _ in "SELECT count(*) AS n FROM teams WHERE id = \(s.team)" }, allowed: anyMember),
        Probe(name: "read memberships", sql: { s, _ in "SELECT count(*) AS n FROM memberships WHERE team_id = \(s.team)" }, allowed: anyMember),
        Probe(name: "read task_counters", sql: { s, _ in "SELECT count(*) AS n FROM task_counters WHERE team_id = \(s.team)" }, allowed: anyMember),
        Probe(name: "read tasks", sql: { s, _ in "SELECT count(*) AS n FROM tasks WHERE team_id = \(s.team)" }, allowed: anyMember),
        Probe(name: "read task_history", sql: { s, _ in "SELECT count(*) AS n FROM task_history WHERE team_id = \(s.team)" }, allowed: anyMember),
        Probe(name: "read task_changes", sql: { s, _ in "SELECT count(*) AS n FROM task_changes WHERE team_id = \(s.team)" }, allowed: anyMember),
        Probe(name: "read a team mate", sql: { s, _ in "SELECT count(*) AS n FROM users WHERE id = \(s.viewer)" }, allowed: anyMember),
        // Owning a team (anyone may make one) reads nobody else: before 0025 admins and owners
        // read every row, so one's own team listed every account's address.
        Probe(name: "read a user in no team", sql: { s, _ in "SELECT count(*) AS n FROM users WHERE id = \(s.stranger)" }, allowed: nobody),
        Probe(
            name: "find a user in no team by their address", sql: { s, _ in "SELECT count(*) AS n FROM taskbase_user_by_email(\(s.strangerEmail))" },
            allowed: atLeast(.admin)),
        Probe(name: "find users by a pattern", sql: { _, _ in "SELECT count(*) AS n FROM taskbase_user_by_email('%')" }, allowed: nobody),
        Probe(
            name: "insert a task",
            sql: { s, me in
                """
                WITH c AS (UPDATE task_counters SET last_number = last_number + 1 WHERE team_id = \(s.team) RETURNING last_number)
                INSERT INTO tasks (team_id, number, title, created_by, updated_by) SELECT \(s.team), c.last_number, 'x', \(me), \(me) FROM c
                """
            }, allowed: atLeast(.member)),
        Probe(
            name: "insert a task numbered past the counter",
            sql: { s, me in
                "INSERT INTO tasks (team_id, number, title, created_by, updated_by) VALUES (\(s.team), 999, 'x', \(me), \(me))"
            }, allowed: nobody),
        // A deleted task's number taken again (0028): the new task wore the old one's history.
        Probe(
            name: "insert a task under a deleted task's number",
            sql: { s, me in
                """
                WITH gone AS (DELETE FROM tasks WHERE team_id = \(s.team) AND id = \(s.taskID) RETURNING number)
                INSERT INTO tasks (team_id, number, title, created_by, updated_by) SELECT \(s.team), gone.number, 'x', \(me), \(me) FROM gone
                """
            }, allowed: nobody),
        Probe(
            name: "update tasks", sql: { s, me in "UPDATE tasks SET title = 'x', updated_by = \(me) WHERE team_id = \(s.team)" },
            allowed: atLeast(.member)),
        Probe(name: "delete tasks", sql: { s, _ in "DELETE FROM tasks WHERE team_id = \(s.team)" }, allowed: atLeast(.member)),
        Probe(
            name: "append history",
            sql: { s, me in
                "INSERT INTO task_history (team_id, task_id, task_number, version, actor_id, kind) VALUES (\(s.team), \(s.taskID), 1, 9, \(me), 'updated')"
            }, allowed: atLeast(.member)),
        Probe(name: "update history", sql: { s, _ in "UPDATE task_history SET kind = 'forged' WHERE team_id = \(s.team)" }, allowed: nobody),
        Probe(name: "delete history", sql: { s, _ in "DELETE FROM task_history WHERE team_id = \(s.team)" }, allowed: nobody),
        Probe(
            name: "append to the change log",
            sql: { s, me in
                """
                INSERT INTO task_changes (team_id, sequence, kind, task_id, number, version, actor_id, changed_at)
                VALUES (\(s.team), 999, 'created', \(s.taskID), 1, 1, \(me), now())
                """
            }, allowed: atLeast(.member)),
        Probe(name: "update the change log", sql: { s, _ in "UPDATE task_changes SET version = 99 WHERE team_id = \(s.team)" }, allowed: nobody),
        Probe(name: "delete from the change log", sql: { s, _ in "DELETE FROM task_changes WHERE team_id = \(s.team)" }, allowed: nobody),
        Probe(
            name: "bump the counter", sql: { s, _ in "UPDATE task_counters SET last_number = last_number + 1 WHERE team_id = \(s.team)" },
            allowed: atLeast(.member)),
        Probe(name: "delete the counter", sql: { s, _ in "DELETE FROM task_counters WHERE team_id = \(s.team)" }, allowed: nobody),
        // Writes in someone else's name, and numbering broken from SQL (migration 0023).
        Probe(
            name: "append history naming a team mate",
            sql: { s, _ in
                "INSERT INTO task_history (team_id, task_id, task_number, version, actor_id, kind) VALUES (\(s.team), \(s.taskID), 1, 9, \(s.viewer), 'updated')"
            }, allowed: nobody),
        Probe(
            name: "append history naming someone outside the team",
            sql: { s, _ in
                "INSERT INTO task_history (team_id, task_id, task_number, version, actor_id, kind) VALUES (\(s.team), \(s.taskID), 1, 9, \(s.stranger), 'updated')"
            }, allowed: nobody),
        Probe(
            name: "log a change naming a team mate",
            sql: { s, _ in
                """
                INSERT INTO task_changes (team_id, sequence, kind, task_id, number, version, actor_id, changed_at)
                VALUES (\(s.team), 999, 'deleted', \(s.taskID), 1, 1, \(s.viewer), now())
                """
            }, allowed: nobody),
        Probe(
            name: "insert a task created by a team mate",
            sql: { s, me in
                "INSERT INTO tasks (team_id, number, title, created_by, updated_by) VALUES (\(s.team), 999, 'x', \(s.viewer), \(me))"
            }, allowed: nobody),
        Probe(
            name: "update tasks in a team mate's name",
            sql: { s, _ in "UPDATE tasks SET title = 'x', updated_by = \(s.viewer) WHERE team_id = \(s.team)" }, allowed: nobody),
        Probe(name: "move a task to a team", sql: { s, _ in "UPDATE tasks SET team_id = \(s.team) WHERE team_id = \(s.team)" }, allowed: nobody),
        Probe(name: "renumber a task", sql: { s, _ in "UPDATE tasks SET number = number + 1000 WHERE team_id = \(s.team)" }, allowed: nobody),
        Probe(name: "rewind the counter", sql: { s, _ in "UPDATE task_counters SET last_change = 0 WHERE team_id = \(s.team)" }, allowed: nobody),
        Probe(
            name: "push the counter to its end",
            sql: { s, _ in "UPDATE task_counters SET last_number = 9223372036854775807 WHERE team_id = \(s.team)" }, allowed: nobody),
        Probe(
            name: "give one's membership to a stranger",
            sql: { s, me in "UPDATE memberships SET user_id = \(s.stranger) WHERE team_id = \(s.team) AND user_id = \(me)" }, allowed: nobody),
        Probe(name: "change the team's key", sql: { s, _ in "UPDATE teams SET key = 'ZZFORGED' WHERE id = \(s.team)" }, allowed: nobody),
        // Adding one in no team by id alone once made them a team mate, readable in users:
        // insert ids, read their addresses, roll back. Now a new member is one the actor sees,
        // or the one whose address they name (taskbase.member_email, 0025).
        Probe(
            name: "add a user in no team by id alone",
            sql: { s, _ in "INSERT INTO memberships (team_id, user_id, role) VALUES (\(s.team), \(s.stranger), 'member')" }, allowed: nobody),
        Probe(
            name: "add a member by their address",
            sql: { s, _ in addingByTheStrangersAddress(s, user: s.stranger, role: "member") }, allowed: atLeast(.admin)),
        Probe(
            name: "add an owner by their address",
            sql: { s, _ in addingByTheStrangersAddress(s, user: s.stranger, role: "owner") }, allowed: atLeast(.owner)),
        Probe(
            name: "add one in no team by another's address",
            sql: { s, _ in addingByTheStrangersAddress(s, user: s.outsider, role: "member") }, allowed: nobody),
        Probe(
            name: "make oneself owner", sql: { s, me in "UPDATE memberships SET role = 'owner' WHERE team_id = \(s.team) AND user_id = \(me)" },
            allowed: atLeast(.owner)),
        Probe(
            name: "change a viewer's role",
            sql: { s, _ in "UPDATE memberships SET role = 'member' WHERE team_id = \(s.team) AND user_id = \(s.viewer)" }, allowed: atLeast(.admin)),
        Probe(
            name: "remove a viewer", sql: { s, _ in "DELETE FROM memberships WHERE team_id = \(s.team) AND user_id = \(s.viewer)" },
            allowed: atLeast(.admin)),
        Probe(
            name: "remove an owner", sql: { s, _ in "DELETE FROM memberships WHERE team_id = \(s.team) AND user_id = \(s.disabledOwner)" },
            allowed: atLeast(.owner)),
        Probe(name: "rename the team", sql: { s, _ in "UPDATE teams SET name = 'x' WHERE id = \(s.team)" }, allowed: atLeast(.owner)),
        Probe(name: "delete the team", sql: { s, _ in "DELETE FROM teams WHERE id = \(s.team)" }, allowed: atLeast(.owner)),
        Probe(
            name: "insert a team", sql: { _, me in "INSERT INTO teams (key, name, created_by) VALUES ('ZZFORGED', 'x', \(me))" }, allowed: nobody),
        Probe(name: "create a user", sql: { _, _ in "INSERT INTO users (email, display_name) VALUES ('forged@example.com', 'x')" }, allowed: nobody),
        Probe(name: "make oneself operator", sql: { _, me in "UPDATE users SET is_operator = true WHERE id = \(me)" }, allowed: nobody),
        Probe(name: "disable a team mate", sql: { s, _ in "UPDATE users SET disabled = true WHERE id = \(s.viewer)" }, allowed: nobody),
        Probe(name: "delete a user", sql: { s, _ in "DELETE FROM users WHERE id = \(s.stranger)" }, allowed: nobody),
    ]

    /// Whether `probe` succeeds for `actor` as the runtime role: it runs and reaches a row.
    /// Each try is rolled back.
    static func attempt(_ probe: Probe, as actor: Int64, stage: Stage, on connection: PGConnection) async throws -> Bool {
        _ = try await connection.simpleQuery(unsafeSQL: "BEGIN; SET LOCAL ROLE taskbase_app")
        _ = try await connection.query("SELECT set_config('taskbase.user_id', \(String(actor)), true)")
        do {
            let query = probe.sql(stage, actor)
            let reached: Int
            if query.sql.hasPrefix("SELECT") {
                reached = try await connection.query(query)[0].decode(Int.self, "n")
            } else {
                reached = try await connection.execute(query)
            }
            _ = try await connection.simpleQuery(unsafeSQL: "ROLLBACK")
            return reached > 0
        } catch let error as PGError {
            _ = try await connection.simpleQuery(unsafeSQL: "ROLLBACK")
            #expect(error.code == .insufficientPrivilege, "\(probe.name): \(error)")
            return false
        }
    }

    @Test("a change logged by a member without taking its sequence from the counter is refused at commit; the team's writes go on")
    func changeLogFollowsTheCounter() async throws {
        let database = try await TestDatabases.shared.value
        let f = try await ContractFixture.make(store: try await PostgresTaskStore.open(config: database, maxConnections: 2))
        let task = try await f.makeTask("Numbered")
        let team = try await f.service.team(f.team, as: f.owner).team.id.rawValue
        let member = try await f.service.user(f.member).id.rawValue
        try await TestLogin.with(memberOf: ["taskbase_app"]) { login in
            try await PGConnection.with(login.config(for: database)) { connection in
                _ = try await connection.simpleQuery(unsafeSQL: "BEGIN; SET LOCAL ROLE taskbase_app")
                _ = try await connection.query("SELECT set_config('taskbase.user_id', \(String(member)), true)")
                // The next sequence, in the member's own name, without advancing the counter:
                // before 0023 it committed, and every later write of the team failed on
                // task_changes' primary key (23505).
                try await connection.execute(
                    """
                    INSERT INTO task_changes (team_id, sequence, kind, task_id, number, version, actor_id, changed_at)
                    SELECT \(team), c.last_change + 1, 'deleted', \(task.id.rawValue), 1, 1, \(member), now()
                      FROM task_counters c WHERE c.team_id = \(team)
                    """)
                do {
                    _ = try await connection.simpleQuery(unsafeSQL: "COMMIT")
                    Issue.record("the out-of-sequence change committed")
                } catch let error as PGError {
                    #expect(error.code == .insufficientPrivilege, "\(error)")
                }
            }
        }
        let edited = try await f.service.updateTask(task.key, try TaskChanges(title: "Still writable"), expectedVersion: 1, as: f.member)
        #expect(edited.version == 2)
        let logged = try await TaskStoreContract.collect(2, from: try await f.service.changes(in: f.team, after: 0, as: f.member)).changes
        #expect(logged.map(\.kind) == [.created, .updated])
    }

    @Test("a member cannot log a change into a gap behind the counter, even after taking a sequence; the team's log goes on (0032)")
    func changesTakeTheirOwnSequence() async throws {
        let database = try await TestDatabases.shared.value
        let f = try await ContractFixture.make(store: try await PostgresTaskStore.open(config: database, maxConnections: 2))
        let task = try await f.makeTask("Alive")
        let team = try await f.service.team(f.team, as: f.owner).team.id.rawValue
        let member = try await f.service.user(f.member).id.rawValue
        func change(_ sequence: PGQuery) -> PGQuery {
            """
            INSERT INTO task_changes (team_id, sequence, kind, task_id, number, version, actor_id, changed_at)
            SELECT \(team), \(sequence), 'deleted', \(task.id.rawValue), \(task.key.number), 1, \(member), '2020-01-01' FROM task_counters c WHERE c.team_id = \(team)
            """
        }
        let advance: PGQuery = "UPDATE task_counters SET last_change = last_change + 5 WHERE team_id = \(team)"
        try await TestLogin.with(memberOf: ["taskbase_app"]) { login in
            try await PGConnection.with(login.config(for: database)) { connection in
                // A gap left behind by one transaction...
                try await RuntimeRoleSQL.asRuntime(connection, actor: member) { _ = try await connection.execute(advance) }
                _ = try await connection.simpleQuery(unsafeSQL: "COMMIT")
                // ...filled by a later one: before 0032 it committed, a "deleted" entry for a live
                // task under a sequence watchers had passed.
                for (name, statements) in [
                    ("into the gap", [change("c.last_change - 2")]),
                    (
                        "into the gap after taking a sequence",
                        ["UPDATE task_counters SET last_change = last_change + 1 WHERE team_id = \(team)", change("c.last_change - 4")]
                    ),
                ] {
                    let refused = try await RuntimeRoleSQL.refusal(of: statements, as: member, on: connection, committing: true)
                    #expect(refused?.code == .insufficientPrivilege, "\(name): \(String(describing: refused))")
                }
            }
        }
        let edited = try await f.service.updateTask(task.key, try TaskChanges(title: "Still alive"), expectedVersion: 1, as: f.member)
        #expect(edited.version == 2)
        let logged = try await TaskStoreContract.collect(2, from: try await f.service.changes(in: f.team, after: 0, as: f.member)).changes
        #expect(logged.map(\.kind) == [.created, .updated])
    }

    @Test("a member cannot give a deleted task's number to a new task, even after taking other numbers; the team's numbering goes on")
    func deletedNumbersStayDeleted() async throws {
        let database = try await TestDatabases.shared.value
        let f = try await ContractFixture.make(store: try await PostgresTaskStore.open(config: database, maxConnections: 2))
        let deleted = try await f.makeTask("Written by the owner")
        _ = try await f.service.updateTask(deleted.key, try TaskChanges(title: "Edited by the owner"), expectedVersion: 1, as: f.owner)
        try await f.service.deleteTask(deleted.key, expectedVersion: 2, as: f.owner)
        let history = try await f.service.history(of: deleted.key, as: f.owner)
        let team = try await f.service.team(f.team, as: f.owner).team.id.rawValue
        let member = try await f.service.user(f.member).id.rawValue
        let insertTheDeletedNumber: PGQuery =
            "INSERT INTO tasks (team_id, number, title, created_by, updated_by) VALUES (\(team), \(deleted.key.number), 'Mine now', \(member), \(member))"
        try await TestLogin.with(memberOf: ["taskbase_app"]) { login in
            try await PGConnection.with(login.config(for: database)) { connection in
                // Before 0028 this committed: a task the member wrote, showing the owner's
                // creation and edit of another as its history, with no creation of its own.
                let attempts: [(String, [PGQuery])] = [
                    ("the number alone", [insertTheDeletedNumber]),
                    (
                        "after taking the next number in the same transaction",
                        ["UPDATE task_counters SET last_number = last_number + 1 WHERE team_id = \(team)", insertTheDeletedNumber]
                    ),
                ]
                for (name, statements) in attempts {
                    let refused = try await RuntimeRoleSQL.refusal(of: statements, as: member, on: connection)
                    #expect(refused?.code == .insufficientPrivilege, "\(name): \(String(describing: refused))")
                    #expect(refused?.message.contains("was not taken from the team's counter in this transaction") == true, "\(name)")
                }
                // Where the numbers start is the database's to write: the runtime role may not.
                let forged = try await RuntimeRoleSQL.refusal(
                    of: ["UPDATE task_counters SET numbered_from = 0 WHERE team_id = \(team)"], as: member, on: connection)
                #expect(forged?.code == .insufficientPrivilege, "\(String(describing: forged))")
            }
        }
        // The runtime role reached by SET ROLE from the schema owner's own login is held to it
        // too; the owner itself is not (a data-only restore writes tasks under the numbers they
        // had, and the owner could drop the trigger anyway).
        try await PGConnection.with(database) { connection in
            let refused = try await RuntimeRoleSQL.refusal(of: [insertTheDeletedNumber], as: member, on: connection)
            #expect(refused?.code == .insufficientPrivilege, "\(String(describing: refused))")
            _ = try await connection.simpleQuery(unsafeSQL: "BEGIN")
            #expect(try await connection.execute(insertTheDeletedNumber) == 1, "the owner restores a task under its number")
            _ = try await connection.simpleQuery(unsafeSQL: "ROLLBACK")
            // A restore into another cluster brings the counter's marker of the transaction that
            // took the numbers, and there a later transaction can have its id (a member burning
            // ids up to it: a review did it in 0.4 s for 20,000). Here the restored marker is
            // made this very transaction's id, with its old time; the member is still refused.
            _ = try await connection.simpleQuery(unsafeSQL: "BEGIN; SET LOCAL session_replication_role = replica")
            _ = try await connection.execute(
                """
                UPDATE task_counters SET numbered_from = \(deleted.key.number - 1), numbered_in = pg_current_xact_id(),
                       numbered_at = now() - interval '1 day'
                 WHERE team_id = \(team)
                """)
            _ = try await connection.simpleQuery(unsafeSQL: "SET LOCAL session_replication_role = origin; SET LOCAL ROLE taskbase_app")
            _ = try await connection.query("SELECT set_config('taskbase.user_id', \(String(member)), true)")
            var restored: PGError?
            do {
                _ = try await connection.execute(insertTheDeletedNumber)
            } catch let error as PGError {
                restored = error
            }
            _ = try await connection.simpleQuery(unsafeSQL: "ROLLBACK")
            #expect(restored?.code == .insufficientPrivilege, "a restored transaction id: \(String(describing: restored))")
        }
        #expect(try await f.service.history(of: deleted.key, as: f.owner) == history)
        let next = try await f.makeTask("Next")
        #expect(next.key.number == deleted.key.number + 1)
    }

    @Test("idempotency keys: the runtime role reads and writes the acting user's only")
    func idempotencyKeysAreOwn() async throws {
        let database = try await TestDatabases.shared.value
        let f = try await ContractFixture.make(store: try await PostgresTaskStore.open(config: database, maxConnections: 2))
        let (owner, member) = (try await f.service.user(f.owner).id.rawValue, try await f.service.user(f.member).id.rawValue)
        let key = "secret-\(UUID().uuidString)"
        _ = try await f.service.claimIdempotencyKey(key, of: UserID(owner), fingerprint: [UInt8](repeating: 7, count: 32))
        try await TestLogin.with(memberOf: ["taskbase_app"]) { login in
            try await PGConnection.with(login.config(for: database)) { connection in
                let seen = try await RuntimeRoleSQL.asRuntime(connection, actor: member) {
                    let read = try await connection.query("SELECT count(*) AS n FROM idempotency_keys WHERE key = \(key)")[0].decode(Int.self, "n")
                    let changed = try await connection.execute("UPDATE idempotency_keys SET status = 200 WHERE key = \(key)")
                    // Nor renewed (0036): another's claim kept from lapsing.
                    let renewed = try await connection.execute("UPDATE idempotency_keys SET renewed_at = now() WHERE key = \(key)")
                    let deleted = try await connection.execute("DELETE FROM idempotency_keys WHERE key = \(key)")
                    return read + changed + renewed + deleted
                }
                _ = try await connection.simpleQuery(unsafeSQL: "ROLLBACK")
                #expect(seen == 0, "another user's key is out of reach")
                // Naming another user's key while writing (0030's note that a request took
                // effect) marks nothing of theirs: the note runs with the writer's rights.
                try await RuntimeRoleSQL.asRuntime(connection, actor: member) {
                    _ = try await connection.query("SELECT set_config('taskbase.idempotency_key', \(key), true)")
                    _ = try await connection.execute("UPDATE tasks SET title = title WHERE false")
                }
                _ = try await connection.simpleQuery(unsafeSQL: "COMMIT")
                let planted = try await RuntimeRoleSQL.refusal(
                    of: [
                        "INSERT INTO idempotency_keys (user_id, key, fingerprint, claimed_at) VALUES (\(owner), 'planted', \(Data(count: 32)), now())"
                    ],
                    as: member, on: connection)
                #expect(planted?.code == .insufficientPrivilege, "\(String(describing: planted))")
                let own = try await RuntimeRoleSQL.asRuntime(connection, actor: owner) {
                    try await connection.query("SELECT count(*) AS n FROM idempotency_keys WHERE key = \(key) AND took_effect_at IS NULL")[0]
                        .decode(Int.self, "n")
                }
                _ = try await connection.simpleQuery(unsafeSQL: "ROLLBACK")
                #expect(own == 1)
            }
        }
        // Keys past their day go when their user claims another: once nothing deleted them, and
        // every keyed POST (the Swift client's all are) added a row for good.
        let now = Date(), fingerprint = [UInt8](repeating: 9, count: 32)
        for index in 0..<3 {
            _ = try await f.store.claimIdempotencyKey(
                "old-\(index)-\(key)", of: UserID(member), fingerprint: fingerprint, at: now.addingTimeInterval(-3 * 86_400), lifetime: 86_400,
                lapsesAfter: 30, abandonedAfter: 900)
        }
        _ = try await f.store.claimIdempotencyKey(
            "new-\(key)", of: UserID(member), fingerprint: fingerprint, at: now, lifetime: 86_400, lapsesAfter: 30, abandonedAfter: 900)
        let kept = try await PGConnection.with(database) { connection in
            try await connection.query("SELECT count(*) AS n FROM idempotency_keys WHERE user_id = \(member)")[0].decode(Int.self, "n")
        }
        #expect(kept == 1, "the member's three keys of three days ago are gone")
    }

    @Test("a disabled user's idempotency keys and tokens are out of reach of the runtime login acting as them (0035)")
    func disabledUsersKeysOutOfReach() async throws {
        let database = try await TestDatabases.shared.value
        let f = try await ContractFixture.make(store: try await PostgresTaskStore.open(config: database, maxConnections: 2))
        let disabled = try await f.service.user(f.disabled).id.rawValue
        let key = "kept-\(UUID().uuidString)"
        // Kept while they were enabled: an answer holding what they could read then.
        try await PGConnection.with(database) { admin in
            try await admin.execute(
                """
                INSERT INTO idempotency_keys (user_id, key, fingerprint, claimed_at, answered_at, status, headers, body)
                VALUES (\(disabled), \(key), \(Data(count: 32)), now(), now(), 201, '{}', \(Data("a task's notes".utf8)))
                """)
        }
        try await TestLogin.with(memberOf: ["taskbase_app"]) { login in
            try await PGConnection.with(login.config(for: database)) { connection in
                let reached = try await RuntimeRoleSQL.asRuntime(connection, actor: disabled) {
                    let read = try await connection.query("SELECT count(*) AS n FROM idempotency_keys WHERE key = \(key)")[0].decode(Int.self, "n")
                    let changed = try await connection.execute(
                        "UPDATE idempotency_keys SET body = NULL, status = 200, renewed_at = now() WHERE key = \(key)")
                    let deleted = try await connection.execute("DELETE FROM idempotency_keys WHERE key = \(key)")
                    return read + changed + deleted
                }
                _ = try await connection.simpleQuery(unsafeSQL: "ROLLBACK")
                #expect(reached == 0, "a disabled user reaches none of their keys")
                for statement: PGQuery in [
                    "INSERT INTO idempotency_keys (user_id, key, fingerprint, claimed_at) VALUES (\(disabled), 'new', \(Data(count: 32)), now())",
                    """
                    INSERT INTO api_tokens (user_id, name, prefix, hash, created_at, expires_at)
                    VALUES (\(disabled), 'mine', 'tb_x', \(Data(repeating: 211, count: 32)), now(), now() + interval '1 day')
                    """,
                ] {
                    let refused = try await RuntimeRoleSQL.refusal(of: [statement], as: disabled, on: connection)
                    #expect(refused?.code == .insufficientPrivilege, "\(String(describing: refused))")
                }
            }
        }
    }

    @Test("api tokens, with the runtime login: no token is re-pointed, revived, extended or planted for another user (0031)")
    func tokensUnderAttack() async throws {
        let database = try await TestDatabases.shared.value
        let f = try await ContractFixture.make(store: try await PostgresTaskStore.open(config: database, maxConnections: 2))
        let (owner, member) = (try await f.service.user(f.owner).id.rawValue, try await f.service.user(f.member).id.rawValue)
        func digest(_ byte: UInt8) -> TokenDigest { TokenDigest(prefix: "tb_t\(byte)", hash: [UInt8](repeating: byte, count: 32)) }
        let mine = try await f.service.createOwnToken(name: "mine", lifetime: 3_600, digest: digest(UInt8.random(in: 1...200)), as: f.member)
        let leaked = try await f.service.createOwnToken(name: "leaked", lifetime: 3_600, digest: digest(201), as: f.member)
        _ = try await f.service.revokeOwnToken(leaked.id, as: f.member)
        try await TestLogin.with(memberOf: ["taskbase_app"]) { login in
            try await PGConnection.with(login.config(for: database)) { connection in
                for actor in [member, 0] {  // as the token's user, and with no user set
                    let attacks: [(String, PGQuery)] = [
                        ("re-point", "UPDATE api_tokens SET user_id = \(owner) WHERE id = \(mine.id.rawValue)"),
                        ("extend", "UPDATE api_tokens SET expires_at = 'infinity' WHERE id = \(mine.id.rawValue)"),
                        ("swap hash", "UPDATE api_tokens SET hash = \(Data(repeating: 202, count: 32)) WHERE id = \(mine.id.rawValue)"),
                        ("revive", "UPDATE api_tokens SET revoked_at = NULL WHERE id = \(leaked.id.rawValue)"),
                        ("move revocation", "UPDATE api_tokens SET revoked_at = revoked_at + interval '1 year' WHERE id = \(leaked.id.rawValue)"),
                        ("hide use", "UPDATE api_tokens SET last_used_at = NULL WHERE id = \(mine.id.rawValue) AND last_used_at IS NOT NULL"),
                        (
                            "plant",
                            """
                            INSERT INTO api_tokens (user_id, name, prefix, hash, created_at, expires_at)
                            VALUES (\(owner), 'planted', 'tb_x', \(Data(repeating: 203, count: 32)), now(), now() + interval '1 day')
                            """
                        ),
                    ]
                    for (name, attack) in attacks {
                        if name == "hide use" { try await f.service.recordUse(of: mine) }
                        let refused = try await RuntimeRoleSQL.refusal(of: [attack], as: actor, on: connection)
                        #expect(refused?.code == .insufficientPrivilege, "\(name) as \(actor): \(String(describing: refused))")
                    }
                }
            }
        }
        // What the programs write still works: a revocation, a use, a token of one's own.
        try await f.service.recordUse(of: mine)
        #expect(try await f.service.revokeOwnToken(mine.id, as: f.member).revokedAt != nil)
        let tokens = try await f.service.ownTokens(as: f.member)
        #expect(tokens.map(\.userID.rawValue) == [member, member] && tokens.allSatisfy { $0.revokedAt != nil })
        #expect(tokens.first { $0.id == mine.id }?.expiresAt == mine.expiresAt)
    }

    @Test("as the runtime role, each role and an outsider, a disabled owner and a removed creator can do exactly their due in every table")
    func matrix() async throws {
        let database = try await TestDatabases.shared.value
        do {
            let f = try await ContractFixture.make(store: try await PostgresTaskStore.open(config: database, maxConnections: 2))
            let task = try await f.makeTask("Secret")
            _ = try await f.service.completeTask(task.key, as: f.member)
            let id: (UserRef) async throws -> Int64 = { try await f.service.user($0).id.rawValue }
            let stranger = try await f.makeUser()
            // A creator who left: the team stays (another owner), the creator has no access.
            let creator = try await f.makeUser()
            let left = try await f.service.createTeam(key: "L" + f.uniqueSuffix(), name: "Left", as: creator)
            try await f.service.setRole(.owner, for: f.owner, in: left.key, as: creator)
            try await f.makeTask("Left behind", in: left.key)
            try await f.service.removeMember(creator, from: left.key, as: f.owner)
            let stage = Stage(
                team: try await f.service.team(f.team, as: f.owner).team.id.rawValue, viewer: try await id(f.viewer),
                disabledOwner: try await id(f.disabled), outsider: try await id(f.outsider), stranger: try await id(stranger),
                strangerEmail: try await f.service.user(stranger).email, taskID: task.id.rawValue)
            var leftStage = stage
            leftStage.team = left.id.rawValue
            let actors: [(String, Int64, Role?, Stage)] = [
                ("owner", try await id(f.owner), .owner, stage), ("admin", try await id(f.admin), .admin, stage),
                ("member", try await id(f.member), .member, stage), ("viewer", stage.viewer, .viewer, stage),
                ("outsider", stage.outsider, nil, stage), ("disabled owner", stage.disabledOwner, nil, stage),
                ("removed creator", try await id(creator), nil, leftStage),
            ]
            try await TestLogin.with(memberOf: ["taskbase_app"]) { login in
                try await PGConnection.with(login.config(for: database)) { connection in
                    for (name, actor, role, stage) in actors {
                        for probe in Self.probes {
                            let allowed = try await Self.attempt(probe, as: actor, stage: stage, on: connection)
                            #expect(allowed == probe.allowed(role), "\(name): \(probe.name)")
                        }
                    }
                }
            }
            #expect(try await f.service.listTasks(in: f.team, as: f.viewer).tasks.map(\.title) == ["Secret"])
        }
    }

    @Test("with the runtime login: an exact address stays exact under a collation of one's own; a leaver's time is the database's")
    func membershipFunctionsUnderAttack() async throws {
        let database = try await TestDatabases.shared.value
        let f = try await ContractFixture.make(store: try await PostgresTaskStore.open(config: database, maxConnections: 2))
        let id: (UserRef) async throws -> Int64 = { try await f.service.user($0).id.rawValue }
        let (owner, viewer) = (try await id(f.owner), try await id(f.viewer))
        let stranger = try await f.service.user(try await f.makeUser())
        let team = try await f.service.team(f.team, as: f.owner).team.id.rawValue
        var assigned = TaskDraftFields()
        assigned.assignee = f.viewer
        let task = try await f.makeTask("Viewer's", assigned)
        try await TestLogin.with(memberOf: ["taskbase_app"]) { login in
            try await PGConnection.with(login.config(for: database)) { connection in
                // A case-, accent- and punctuation-blind collation of one's own once made the
                // "exact" lookup match other spellings (plpgsql compares in the caller's).
                let found = try await RuntimeRoleSQL.asRuntime(connection, actor: owner) {
                    _ = try await connection.simpleQuery(
                        unsafeSQL: "CREATE COLLATION pg_temp.blind (provider = icu, locale = 'und-u-ka-shifted-ks-level1', deterministic = false)")
                    let blurred = stranger.email.uppercased().replacingOccurrences(of: ".", with: " ")
                    let rows = try await connection.query(
                        "SELECT (SELECT count(*) FROM taskbase_user_by_email(\(blurred) COLLATE pg_temp.blind)) + coalesce(taskbase_user_id_for_email(\(blurred) COLLATE pg_temp.blind), 0) AS n"
                    )
                    let exact = try await connection.query(
                        "SELECT count(*) AS n FROM taskbase_user_by_email(\(stranger.email) COLLATE pg_temp.blind)")
                    return (try rows[0].decode(Int64.self, "n"), try exact[0].decode(Int64.self, "n"))
                }
                _ = try await connection.simpleQuery(unsafeSQL: "ROLLBACK")
                #expect(found.0 == 0 && found.1 == 1, "\(found)")
                // A viewer leaving with an assigned task once stamped its edit with any time,
                // -infinity too (which broke the team's list sorted by update).
                let left = try await RuntimeRoleSQL.asRuntime(connection, actor: viewer) {
                    try await connection.query("SELECT taskbase_leave_team(\(team), '-infinity') AS left")[0].decode(Bool.self, "left")
                }
                _ = try await connection.simpleQuery(unsafeSQL: "COMMIT")
                #expect(left)
            }
        }
        let now = try await f.service.task(task.key, as: f.owner)
        #expect(now.assigneeID == nil && now.version == 2 && abs(now.updatedAt.timeIntervalSinceNow) < 3_600, "\(now)")
        #expect(try await f.service.listTasks(in: f.team, TaskQuery(sort: .updated), as: f.owner).tasks.count == 1)
    }

    @Test(
        "with the runtime login: leaving says how many of the leaver's tasks in the team it unassigned, NULL when it did nothing; the boolean form stays (0038)"
    )
    func leavingCountsUnassigned() async throws {
        // taskbase_leave_team computed the count and threw it away: a viewer leaving could not be
        // told it exactly (they may not lock the counter to count first, nor see the tasks after).
        let database = try await TestDatabases.shared.value
        let f = try await ContractFixture.make(store: try await PostgresTaskStore.open(config: database, maxConnections: 2))
        let id: (UserRef) async throws -> Int64 = { try await f.service.user($0).id.rawValue }
        let (member, viewer, outsider) = (try await id(f.member), try await id(f.viewer), try await id(f.outsider))
        let elsewhere = try await f.makeTeam()
        let team = try await f.service.team(f.team, as: f.owner).team.id.rawValue
        var toMember = TaskDraftFields(), toViewer = TaskDraftFields()
        toMember.assignee = f.member
        toViewer.assignee = f.viewer
        for title in ["One", "Two"] { try await f.makeTask(title, toMember) }
        let viewers = try await f.makeTask("Viewer's", toViewer), kept = try await f.makeTask("Kept", in: elsewhere, toMember)
        try await TestLogin.with(memberOf: ["taskbase_app"]) { login in
            try await PGConnection.with(login.config(for: database)) { (connection: PGConnection) async throws in
                func leave(_ actor: Int64) async throws -> Int64? {
                    let unassigned = try await RuntimeRoleSQL.asRuntime(connection, actor: actor) {
                        try await connection.query("SELECT taskbase_leave_team_unassigning(\(team), now()) AS n")[0].decode(Int64?.self, "n")
                    }
                    _ = try await connection.simpleQuery(unsafeSQL: "COMMIT")
                    return unassigned
                }
                func leaveAsBefore(_ actor: Int64) async throws -> Bool {
                    let left = try await RuntimeRoleSQL.asRuntime(connection, actor: actor) {
                        try await connection.query("SELECT taskbase_leave_team(\(team), now()) AS left")[0].decode(Bool.self, "left")
                    }
                    _ = try await connection.simpleQuery(unsafeSQL: "COMMIT")
                    return left
                }
                #expect(try await leave(outsider) == nil)
                #expect(try await leave(member) == 2)
                #expect(try await leave(member) == nil)
                // A taskserve built before 0038 calls the boolean form: it still leaves and unassigns.
                #expect(try await leaveAsBefore(viewer))
                #expect(try await leaveAsBefore(viewer) == false)
            }
        }
        #expect(try await f.allTasks().allSatisfy { $0.assigneeID == nil })
        #expect(try await f.service.task(viewers.key, as: f.owner).updatedBy.rawValue == viewer)
        #expect(try await f.service.task(kept.key, as: f.owner) == kept)
    }

    @Test("a member removed by a plain DELETE (a program built before 0026, or SQL) is unassigned as an edit by whoever deleted")
    func removalByPlainDelete() async throws {
        let database = try await TestDatabases.shared.value
        let f = try await ContractFixture.make(store: try await PostgresTaskStore.open(config: database, maxConnections: 2))
        let (admin, member) = (try await f.service.user(f.admin).id, try await f.service.user(f.member).id)
        let team = try await f.service.team(f.team, as: f.owner).team.id.rawValue
        var assigned = TaskDraftFields()
        assigned.assignee = f.member
        let task = try await f.makeTask("Member's", assigned)
        let feed = try await f.service.changes(in: f.team, after: 1, as: f.owner)
        try await TestLogin.with(memberOf: ["taskbase_app"]) { login in
            try await PGConnection.with(login.config(for: database)) { connection in
                try await RuntimeRoleSQL.asRuntime(connection, actor: admin.rawValue) {
                    _ = try await connection.simpleQuery(unsafeSQL: "SELECT 1 FROM task_counters WHERE team_id = \(team) FOR UPDATE")
                    _ = try await connection.execute("DELETE FROM memberships WHERE team_id = \(team) AND user_id = \(member.rawValue)")
                }
                _ = try await connection.simpleQuery(unsafeSQL: "COMMIT")
            }
        }
        let now = try await f.service.task(task.key, as: f.owner)
        #expect(now.assigneeID == nil && now.version == 2 && now.updatedBy == admin, "\(now)")
        #expect(try await f.service.history(of: task.key, as: f.owner).last?.changes.map(\.field) == [.assignee])
        let changes = try await TaskStoreContract.collect(1, from: feed).changes
        #expect(changes.map(\.kind) == [.updated] && changes.map(\.actorID) == [admin])
    }

    @Test("an admin deleting their own membership and a member's in one statement still unassigns the member's tasks as an edit")
    func removalOfSeveralAtOnce() async throws {
        let database = try await TestDatabases.shared.value
        let f = try await ContractFixture.make(store: try await PostgresTaskStore.open(config: database, maxConnections: 2))
        let (admin, member) = (try await f.service.user(f.admin).id, try await f.service.user(f.member).id)
        #expect(admin.rawValue < member.rawValue, "the admin's row goes first")
        let team = try await f.service.team(f.team, as: f.owner).team.id.rawValue
        var assigned = TaskDraftFields()
        assigned.assignee = f.member
        let task = try await f.makeTask("Member's", assigned)
        try await TestLogin.with(memberOf: ["taskbase_app"]) { login in
            try await PGConnection.with(login.config(for: database)) { connection in
                // Once the trigger's edits ran as the admin, no longer a member by the member's
                // row: row security hid the task, and the foreign key cleared it silently.
                let removed = try await RuntimeRoleSQL.asRuntime(connection, actor: admin.rawValue) {
                    try await connection.execute(
                        "DELETE FROM memberships WHERE team_id = \(team) AND user_id IN (\(admin.rawValue), \(member.rawValue))")
                }
                _ = try await connection.simpleQuery(unsafeSQL: "COMMIT")
                #expect(removed == 2)
            }
        }
        let now = try await f.service.task(task.key, as: f.owner)
        #expect(now.assigneeID == nil && now.version == 2 && now.updatedBy == admin, "\(now)")
    }

    @Test("an owner stepping down while an operator disables another owner both go through, as before 0027: no deadlock")
    func ownerRuleWithoutDeadlock() async throws {
        let database = try await TestDatabases.shared.value
        let f = try await ContractFixture.make(store: try await PostgresTaskStore.open(config: database, maxConnections: 2))
        let third = try await f.makeUser()
        try await f.service.setRole(.owner, for: f.admin, in: f.team, as: f.owner)
        try await f.service.setRole(.owner, for: third, in: f.team, as: f.owner)
        let (stepping, disabled) = (try await f.service.user(f.admin).id.rawValue, try await f.service.user(third).id.rawValue)
        let team = try await f.service.team(f.team, as: f.owner).team.id.rawValue
        try await TestLogin.with(memberOf: ["taskbase_app"]) { login in
            try await PGConnection.with(login.config(for: database)) { owner in
                try await PGConnection.with(database) { operatorSession in
                    try await RuntimeRoleSQL.asRuntime(owner, actor: stepping) {
                        _ = try await owner.simpleQuery(unsafeSQL: "SELECT 1 FROM task_counters WHERE team_id = \(team) FOR UPDATE")
                    }
                    // The disable holds the user's row and waits for the team's counter.
                    let disabling = Task { try await operatorSession.execute("UPDATE users SET disabled = true WHERE id = \(disabled)") }
                    var waiting = false
                    for _ in 0..<200 where !waiting {
                        let rows = try await owner.query(
                            "SELECT count(*) AS n FROM pg_locks WHERE NOT granted AND locktype = 'transactionid'")
                        waiting = try rows[0].decode(Int64.self, "n") > 0
                        if !waiting { try await Task.sleep(for: .milliseconds(50)) }
                    }
                    _ = try await owner.execute("UPDATE memberships SET role = 'admin' WHERE team_id = \(team) AND user_id = \(stepping)")
                    _ = try await owner.simpleQuery(unsafeSQL: "COMMIT")
                    #expect(try await disabling.value == 1, "the disable went through too")
                }
            }
        }
        let owners = try await f.service.members(of: f.team, as: f.owner).filter { $0.role == .owner && !$0.user.isDisabled }
        #expect(owners.count == 1)
    }

    @Test("two owners leaving at once under REPEATABLE READ cannot leave the team ownerless: the second is a serialization failure")
    func ownerRuleUnderRepeatableRead() async throws {
        let database = try await TestDatabases.shared.value
        let f = try await ContractFixture.make(store: try await PostgresTaskStore.open(config: database, maxConnections: 2))
        try await f.service.setRole(.owner, for: f.admin, in: f.team, as: f.owner)
        let (first, second) = (try await f.service.user(f.owner).id.rawValue, try await f.service.user(f.admin).id.rawValue)
        let team = try await f.service.team(f.team, as: f.owner).team.id.rawValue
        try await TestLogin.with(memberOf: ["taskbase_app"]) { login in
            try await PGConnection.with(login.config(for: database)) { one in
                try await PGConnection.with(login.config(for: database)) { two in
                    // Both take their snapshot while both are owners.
                    for (connection, actor) in [(one, first), (two, second)] {
                        try await RuntimeRoleSQL.asRuntime(connection, actor: actor, isolation: "REPEATABLE READ") {
                            _ = try await connection.query("SELECT count(*) AS n FROM memberships WHERE team_id = \(team)")
                        }
                    }
                    #expect(try await one.query("SELECT taskbase_leave_team(\(team), now()) AS left")[0].decode(Bool.self, "left"))
                    _ = try await one.simpleQuery(unsafeSQL: "COMMIT")
                    do {
                        _ = try await two.query("SELECT taskbase_leave_team(\(team), now()) AS left")
                        Issue.record("the second owner left too")
                    } catch let error as PGError {
                        #expect(error.code == .serializationFailure, "\(error)")
                    }
                    _ = try await two.simpleQuery(unsafeSQL: "ROLLBACK")
                }
            }
        }
        let owners = try await f.service.members(of: f.team, as: f.member).filter { $0.role == .owner && !$0.user.isDisabled }
        #expect(owners.map(\.user.id.rawValue) == [second])
    }
}
