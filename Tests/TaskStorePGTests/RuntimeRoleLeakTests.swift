import Foundation
import Migrations
import PGStore
import Testing
import TaskbaseTestSupport

/// What the runtime login (assumed stolen) learns of other teams by typing SQL, on
/// databases of their own, written by their superuser login: team 1 (ALPHA, user 1 its owner) has
/// 2,000 tasks, 400 of them in the category `merger-zeta` and all titled `Alpha plan N`; team 2
/// (BETA, user 2) has 10.
@Suite("the runtime login learns nothing of other teams from the planner", .timeLimit(.minutes(3)))
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
}
