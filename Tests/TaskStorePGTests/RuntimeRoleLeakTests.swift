import Foundation
import Migrations
import PGStore
import Testing
import TaskbaseTestSupport

/// What the runtime login (assumed stolen) learns or forges of other teams by typing SQL, on
/// databases of their own, written by their superuser login: team 1 (ALPHA, user 1 its owner) has
/// 2,000 tasks, 400 of them in the category `merger-zeta` and all titled `Alpha plan N`; team 2
/// (BETA, user 2) has 10.
@Suite("the runtime login learns nothing of other teams from the planner, and forges no ids", .timeLimit(.minutes(3)))
struct RuntimeRoleLeakTests {
    static let teams = """
        INSERT INTO users (email, display_name) VALUES ('alpha@example.com', 'Alpha'), ('beta@example.com', 'Beta');
        INSERT INTO teams (key, name, created_by) VALUES ('ALPHA', 'Alpha merger', 1), ('BETA', 'Beta', 2);
        INSERT INTO memberships (team_id, user_id, role) VALUES (1, 1, 'owner'), (2, 2, 'owner');
        INSERT INTO task_counters (team_id, last_number) VALUES (1, 2000), (2, 10);
        INSERT INTO tasks (team_id, number, title, notes, category, external_id, created_by, updated_by)
        SELECT 1, n, 'Alpha plan ' || n, 'Alpha notes ' || n, CASE WHEN n <= 400 THEN 'merger-zeta' ELSE 'other-' || n % 7 END,
               'alpha-' || n, 1, 1
          FROM generate_series(1, 2000) n;
        INSERT INTO tasks (team_id, number, title, created_by, updated_by) SELECT 2, n, 'Beta ' || n, 2, 2 FROM generate_series(1, 10) n;
        """

    /// The statistics ANALYZE keeps of what teams write.
    static let statisticsOfTeamText = """
        SELECT count(*) AS n FROM pg_stats
         WHERE schemaname = 'public'
           AND (tablename, attname) IN (('tasks', 'title'), ('tasks', 'notes'), ('tasks', 'category'), ('tasks', 'external_id'),
                                        ('teams', 'name'), ('teams', 'key'), ('users', 'email'), ('users', 'display_name'),
                                        ('users_email_key', 'lower'))
        """

    /// The planner's row estimate of `SELECT * FROM table WHERE condition`, as the runtime role
    /// acting as `actor`.
    static func estimate(_ table: String, _ condition: String, as actor: Int64, on connection: PGConnection) async throws -> Int {
        _ = try await connection.simpleQuery(unsafeSQL: "BEGIN; SET LOCAL ROLE taskbase_app")
        _ = try await connection.query("SELECT set_config('taskbase.user_id', \(String(actor)), true)")
        let plan = try await connection.query(PGQuery(unsafeSQL: "EXPLAIN (FORMAT JSON) SELECT * FROM \(table) WHERE \(condition)"))[0]
            .decode(String.self, at: 0)
        _ = try await connection.simpleQuery(unsafeSQL: "ROLLBACK")
        let rows = plan.components(separatedBy: "\"Plan Rows\": ").dropFirst().first?.prefix { $0.isNumber } ?? ""
        return try #require(Int(rows), "\(plan)")
    }

    @Test("an outsider's EXPLAIN estimates the same rows for another team's category, titles, ids and name as for absent ones (0033)")
    func estimatesShowNoOtherTeam() async throws {
        try await TestDatabase.with(migrated: true, purpose: "estimates") { database in
            try await database.withConnection { admin in
                _ = try await admin.simpleQuery(unsafeSQL: Self.teams + "; ANALYZE")
                #expect(try await admin.query(PGQuery(unsafeSQL: Self.statisticsOfTeamText))[0].decode(Int.self, "n") == 0)
            }
            try await TestLogin.with(memberOf: ["taskbase_app"]) { login in
                try await PGConnection.with(login.config(for: database.config)) { connection in
                    // Before 0033: 400 (the category's frequency) against 1, and a histogram's
                    // share of ALPHA's titles below each bound.
                    let pairs: [(String, String, String)] = [
                        ("tasks", "category = 'merger-zeta'", "category = 'absent-zeta'"),
                        ("tasks", "title < 'Alpha plan 8'", "title < 'Alpha plan 1'"),
                        ("tasks", "title > 'Alpha plan 5'", "title > 'Zulu'"),
                        ("tasks", "notes < 'Alpha notes 5'", "notes < 'Aaa'"),
                        ("tasks", "external_id = 'alpha-17'", "external_id = 'absent-17'"),
                        ("teams", "name < 'Alpha z'", "name < 'Aaa'"),
                        ("teams", "key < 'B'", "key < 'AA'"),
                    ]
                    for (table, present, absent) in pairs {
                        let shown = try await Self.estimate(table, present, as: 2, on: connection)
                        let none = try await Self.estimate(table, absent, as: 2, on: connection)
                        #expect(shown == none, "\(table) where \(present): \(shown) rows estimated, \(none) for \(absent)")
                    }
                }
            }
        }
    }

    @Test("statistics collected before 0033 (and users' names before 0025) are gone after it, and ANALYZE brings none back")
    func staleStatisticsGo() async throws {
        try await TestDatabase.with(migrated: false, purpose: "stale_statistics") { database in
            let runner = MigrationRunner(directory: MigrationDirectory(path: TestDatabases.migrationsDirectory), config: database.config)
            _ = try await runner.up(to: 24)
            try await database.withConnection { admin in
                _ = try await admin.simpleQuery(unsafeSQL: Self.teams + "; ANALYZE")
            }
            _ = try await runner.up(to: 29)
            try await database.withConnection { admin in
                // 0025 set the targets of users' names to 0, and their statistics (and its index's) stayed.
                let kept = try await admin.query(PGQuery(unsafeSQL: Self.statisticsOfTeamText))[0].decode(Int.self, "n")
                #expect(kept == 9)
            }
            _ = try await runner.up(to: 33)
            try await database.withConnection { admin in
                #expect(try await admin.query(PGQuery(unsafeSQL: Self.statisticsOfTeamText))[0].decode(Int.self, "n") == 0)
                let tables = try await admin.query("SELECT count(*) AS n FROM pg_stats WHERE schemaname = 'public' AND tablename = 'tasks'")
                #expect(try tables[0].decode(Int.self, "n") > 0, "the other columns keep theirs")
                _ = try await admin.simpleQuery(unsafeSQL: "ANALYZE")
                #expect(try await admin.query(PGQuery(unsafeSQL: Self.statisticsOfTeamText))[0].decode(Int.self, "n") == 0)
            }
        }
    }

    @Test("the runtime role cannot choose a history entry's id, nor a task's outside what tasks_id_seq drew, nor one taken (0034)")
    func idsAreDrawn() async throws {
        try await TestDatabase.with(migrated: true, purpose: "drawn_ids") { database in
            let taken = try await database.withConnection { admin in
                _ = try await admin.simpleQuery(unsafeSQL: Self.teams)
                // The tasks above took their ids from the sequence; one more is drawn and left unused.
                return try await admin.query("SELECT min(id) AS low, nextval('tasks_id_seq') AS drawn FROM tasks")[0]
            }
            let existing = try taken.decode(Int64.self, "low")
            let drawn = try taken.decode(Int64.self, "drawn")
            let history: (String, String) -> PGQuery = { columns, values in
                PGQuery(
                    unsafeSQL: """
                        INSERT INTO task_history (\(columns)team_id, task_id, task_number, version, actor_id, changed_at, kind, created_values)
                        VALUES (\(values)1, \(existing), 1, 1, 1, '2001-01-01', 'created', '{"Carol wrote this first"}')
                        """)
            }
            // A task numbered as the store numbers it: the counter advanced in the same statement.
            let task: (String, String) -> PGQuery = { columns, values in
                PGQuery(
                    unsafeSQL: """
                        WITH c AS (UPDATE task_counters SET last_number = last_number + 1 WHERE team_id = 1 RETURNING last_number)
                        INSERT INTO tasks (\(columns)team_id, number, title, created_by, updated_by)
                        SELECT \(values)1, c.last_number, 'Forged', 1, 1 FROM c
                        """)
            }
            try await TestLogin.with(memberOf: ["taskbase_app"]) { login in
                try await PGConnection.with(login.config(for: database.config)) { connection in
                    let refusal = { (statement: PGQuery) in try await RuntimeRoleSQL.refusal(of: [statement], as: 1, on: connection) }
                    // Before 0034 this entry was read first, ahead of the task's real creation.
                    let forged = try await refusal(history("id, ", "-1, "))
                    #expect(forged?.code == .insufficientPrivilege, "\(String(describing: forged))")
                    #expect(try await refusal(history("", "")) == nil, "an entry with its id drawn is appended")
                    #expect(try await refusal(task("", "")) == nil, "a task with its id drawn is inserted")
                    #expect(try await refusal(task("id, ", "nextval('tasks_id_seq'), ")) == nil, "as the import draws them")
                    let twice = try await refusal(task("id, ", "\(existing), "))
                    #expect(twice?.code == .uniqueViolation && twice?.constraint == "tasks_id_key", "\(String(describing: twice))")
                    for undrawn in [drawn + 1_000, drawn + 1_000_000, 0, -1] {
                        let refused = try await refusal(task("id, ", "\(undrawn), "))
                        #expect(refused?.code == .insufficientPrivilege, "id \(undrawn): \(String(describing: refused))")
                        #expect(refused?.message.contains("never drawn") == true, "id \(undrawn): \(String(describing: refused))")
                    }
                }
            }
        }
    }

    @Test("an admin finding an operator by their address learns what they would of anyone, not that they are an operator (0039)")
    func operatorsNotToldByAddress() async throws {
        try await TestDatabase.with(migrated: true, purpose: "operator_flag") { database in
            try await database.withConnection { admin in
                _ = try await admin.simpleQuery(
                    unsafeSQL: """
                        INSERT INTO users (email, display_name) VALUES ('alpha@example.com', 'Alpha'), ('adam@example.com', 'Adam');
                        INSERT INTO users (email, display_name, is_operator) VALUES ('ops@example.com', 'Pat', true), ('plain@example.com', 'Pat', false);
                        INSERT INTO teams (key, name, created_by) VALUES ('ALPHA', 'Alpha', 1);
                        INSERT INTO memberships (team_id, user_id, role) VALUES (1, 1, 'owner'), (1, 2, 'admin');
                        INSERT INTO task_counters (team_id, last_number) VALUES (1, 0)
                        """)
            }
            try await RuntimeRoleSQL.asRuntimeLogin(database.config) { connection in
                // Adam, an admin of ALPHA, looks up two addresses he knows, neither in his team.
                let told = try await RuntimeRoleSQL.asRuntime(connection, actor: 2) {
                    try await connection.query(
                        """
                        SELECT (SELECT count(*) FROM taskbase_user_by_email('ops@example.com')) AS found,
                               (SELECT bool_or(u.is_operator) FROM taskbase_user_by_email('ops@example.com') u) AS operator,
                               (SELECT to_jsonb(u) - 'id' - 'email' - 'created_at' FROM taskbase_user_by_email('ops@example.com') u)
                                 IS NOT DISTINCT FROM
                               (SELECT to_jsonb(u) - 'id' - 'email' - 'created_at' FROM taskbase_user_by_email('plain@example.com') u) AS alike
                        """)[0]
                }
                _ = try await connection.simpleQuery(unsafeSQL: "ROLLBACK")
                #expect(try told.decode(Int64.self, "found") == 1, "the lookup still finds the address")
                // Before 0039: true, and the two rows differed in is_operator alone.
                #expect(try told.decode(Bool.self, "operator") == false)
                #expect(try told.decode(Bool.self, "alike"), "the operator's row differs from another's only in who they are")
            }
        }
    }
}
