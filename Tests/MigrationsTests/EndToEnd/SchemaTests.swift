import Foundation
import Migrations
import PGStore
import TaskbaseTestSupport
import Testing

extension EndToEnd {
    @Suite("The project's schema")
    struct SchemaTests {
        /// A database of the project's migrations up to `version`, `seed` run in it as it
        /// stands there: for a test of what the migrations after it do to existing rows.
        static func upgrading(
            from version: Int64, seed: String, _ body: (TestDatabase, MigrationRunner) async throws -> Void
        ) async throws {
            let folder = try MigrationFolder.project()
            defer { folder.delete() }
            try await TestDatabase.with(migrated: false, purpose: "migrations") { database in
                let runner = MigrationRunner(directory: folder.directory, config: database.config)
                try await runner.up(to: version)
                try await database.withConnection { connection in _ = try await connection.simpleQuery(unsafeSQL: seed) }
                try await body(database, runner)
            }
        }

        @Test("adding category to a table of 100,000 tasks does not rewrite it: relfilenode unchanged")
        func categoryIsMetadataOnly() async throws {
            let seed = """
                INSERT INTO users (email, display_name) VALUES ('owner@example.com', 'Owner');
                INSERT INTO teams (key, name, created_by) VALUES ('CORE', 'Core', 1);
                SET session_replication_role = replica; -- skip per-row foreign key checks while filling
                INSERT INTO tasks (team_id, number, title, created_by, updated_by)
                     SELECT 1, n, 'task ' || n, 1, 1 FROM generate_series(1, 100000) AS n;
                RESET session_replication_role;
                """
            try await Self.upgrading(from: 2, seed: seed) { database, runner in
                let before = try await database.scalar("SELECT relfilenode::text FROM pg_class WHERE oid = 'tasks'::regclass")
                #expect(try await runner.up().map(\.version) == MigrationFolder.projectVersions.filter { $0 >= 3 })
                #expect(try await database.scalar("SELECT relfilenode::text FROM pg_class WHERE oid = 'tasks'::regclass") == before)
                #expect(try await database.scalar("SELECT count(*)::text FROM tasks WHERE category IS NULL") == "100000")
                #expect(
                    try await database.scalar("SELECT indisvalid::text FROM pg_index WHERE indexrelid = 'tasks_team_category_idx'::regclass")
                        == "true")
            }
        }

        @Test("upgrading to 0020 recomposes emails stored decomposed; two users that would become one address stop it, nothing changed")
        func emailsComposed() async throws {
            let decomposed = """
                INSERT INTO users (id, email, display_name) VALUES
                    (1, U&'jose\\0301@example.com', 'José'), (2, 'ann@example.com', 'Ann'), (3, U&'zo\\00EB@example.com', 'Zoë');
                """
            try await Self.upgrading(from: 19, seed: decomposed) { database, runner in
                _ = try await runner.up()
                let composed = try await database.scalar("SELECT (email = U&'jos\\00E9@example.com')::text FROM users WHERE id = 1")
                #expect(composed == "true", "the same bytes as a composed é")
                #expect(try await database.scalar("SELECT count(*)::text FROM users WHERE email IS NOT NFC NORMALIZED") == "0")
            }
            let twins = """
                INSERT INTO users (id, email, display_name) VALUES
                    (4, U&'jos\\00E9@example.com', 'José'), (5, U&'jose\\0301@example.com', 'José again'),
                    (6, U&'ren\\0065\\0301@example.com', 'René');
                """
            try await Self.upgrading(from: 19, seed: twins) { (database, runner) async throws in
                var refusal = "(none: two users with one address after composing were let through)"
                do { _ = try await runner.up() } catch { refusal = "\(error)" }
                #expect(refusal.contains("(ids 4, 5)") && refusal.contains("give one user of each pair another address"), "\(refusal)")
                #expect(try await database.scalar("SELECT count(*)::text FROM users WHERE email IS NOT NFC NORMALIZED") == "2", "nothing changed")
                #expect(try await database.scalar("SELECT max(version)::text FROM schema_migrations") == "19")
            }
        }

        @Test("upgrading to 0021 recomposes task text and makes the filters fold case by Unicode; twin external ids stop it, nothing changed")
        func taskTextComposed() async throws {
            let team = """
                INSERT INTO users (id, email, display_name) VALUES (1, 'owner@example.com', 'Owner');
                INSERT INTO teams (id, key, name, created_by) VALUES (1, 'CORE', 'Core', 1);
                """
            let decomposed =
                team + """
                    INSERT INTO tasks (team_id, number, id, title, notes, category, external_id, created_by, updated_by) VALUES
                        (1, 1, 1, U&'Cafe\\0301 order', U&'cre\\0300me', U&'E\\0301te\\0301', U&'ext-e\\0301', 1, 1),
                        (1, 2, 2, 'Plain', '', NULL, NULL, 1, 1);
                    """
            try await Self.upgrading(from: 20, seed: decomposed) { database, runner in
                _ = try await runner.up()
                let composed = try await database.scalar(
                    """
                    SELECT (title = U&'Caf\\00E9 order' AND notes = U&'cr\\00E8me' AND category = U&'\\00C9t\\00E9'
                            AND external_id = U&'ext-\\00E9' AND version = 1)::text FROM tasks WHERE number = 1
                    """)
                #expect(composed == "true", "the same bytes as composed text, the version kept")
                // C-locale test clusters fold A-Z only; the collation folds É as it folds E.
                #expect(try await database.scalar("SELECT (U&'CAF\\00C9' ILIKE U&'caf\\00E9' COLLATE taskbase_fold)::text") == "true")
            }
            let twins =
                team + """
                    INSERT INTO tasks (team_id, number, id, title, external_id, created_by, updated_by) VALUES
                        (1, 1, 1, 'One', U&'ext-\\00E9', 1, 1), (1, 2, 2, 'Two', U&'ext-e\\0301', 1, 1), (1, 3, 3, U&'Thre\\0065\\0301', NULL, 1, 1);
                    """
            try await Self.upgrading(from: 20, seed: twins) { (database, runner) async throws in
                var refusal = "(none: two tasks with one external id after composing were let through)"
                do { _ = try await runner.up() } catch { refusal = "\(error)" }
                #expect(refusal.contains("team 1 (task numbers 1, 2)") && refusal.contains("change the external id"), "\(refusal)")
                #expect(try await database.scalar("SELECT count(*)::text FROM tasks WHERE title IS NOT NFC NORMALIZED") == "1", "nothing changed")
                #expect(try await database.scalar("SELECT count(*)::text FROM pg_collation WHERE collname = 'taskbase_fold'") == "0")
                #expect(try await database.scalar("SELECT max(version)::text FROM schema_migrations") == "20")
            }
        }

        @Test(
            "upgrading to 0015 gives existing history its task's number: from the task, else from the change log's deletion; only what neither knows stays NULL"
        )
        func historyTaskNumbersFilled() async throws {
            // Task 7 lives; task 8 was deleted after 0006 (the log has its number); task 9's
            // deletion predates the log. Ids differ from numbers on purpose.
            let seed = """
                INSERT INTO users (id, email, display_name) VALUES (1, 'alice@example.com', 'Alice');
                INSERT INTO teams (id, key, name, created_by) VALUES (1, 'CORE', 'Core', 1);
                INSERT INTO memberships VALUES (1, 1, 'owner');
                INSERT INTO task_counters (team_id, last_number, last_change) VALUES (1, 9, 3);
                INSERT INTO tasks (id, team_id, number, title, created_by, updated_by) VALUES (107, 1, 7, 'lives', 1, 1);
                INSERT INTO task_history (team_id, task_id, version, actor_id, kind) VALUES
                    (1, 107, 1, 1, 'created'), (1, 107, 2, 1, 'updated'), (1, 108, 1, 1, 'created'), (1, 109, 1, 1, 'created');
                INSERT INTO task_changes (team_id, sequence, kind, task_id, number, version, actor_id, changed_at) VALUES
                    (1, 1, 'created', 108, 8, 1, 1, now()), (1, 2, 'deleted', 108, 8, 1, 1, now()), (1, 3, 'bulk', NULL, NULL, NULL, 1, now());
                """
            try await Self.upgrading(from: 14, seed: seed) { database, runner in
                _ = try await runner.up()
                let numbers = try await database.scalar(
                    "SELECT string_agg(task_id || ':' || coalesce(task_number::text, 'NULL'), ' ' ORDER BY id) FROM task_history")
                #expect(numbers == "107:7 107:7 108:8 109:NULL")
                #expect(
                    try await database.scalar(
                        "SELECT indisvalid::text FROM pg_index WHERE indexrelid = 'task_history_task_number_idx'::regclass") == "true")
                #expect(try await database.scalar("SELECT count(*)::text FROM pg_class WHERE relname = 'task_history_task_idx'") == "0")
                await #expect(throws: PGError.self) {
                    try await database.withConnection { connection in
                        _ = try await connection.simpleQuery(
                            unsafeSQL: "INSERT INTO task_history (team_id, task_id, version, actor_id, kind) VALUES (1, 110, 1, 1, 'created')")
                    }
                }
            }
        }

        @Test(
            "as the runtime role, with another user's id set, every tenant table reads empty for a foreign team and writes there are refused; it can neither create, alter, drop nor take over a table"
        )
        func rowLevelSecurity() async throws {
            let folder = try MigrationFolder.project()
            defer { folder.delete() }
            try await TestDatabase.with(migrated: false, purpose: "migrations") { database in
                try await MigrationRunner(directory: folder.directory, config: database.config).up()
                try await database.withConnection { connection in
                    _ = try await connection.simpleQuery(
                        unsafeSQL: """
                            INSERT INTO users (id, email, display_name) VALUES (1, 'alice@example.com', 'Alice'), (2, 'bob@example.com', 'Bob');
                            INSERT INTO teams (id, key, name, created_by) VALUES (1, 'CORE', 'Core', 1), (2, 'OPS', 'Ops', 2);
                            INSERT INTO memberships VALUES (1, 1, 'owner'), (2, 2, 'owner');
                            INSERT INTO task_counters VALUES (1, 0), (2, 0);
                            UPDATE task_counters SET last_number = 1; -- a task's number is taken from the counter (0023, 0028)
                            INSERT INTO tasks (team_id, number, title, created_by, updated_by) VALUES (1, 1, 'secret', 1, 1), (2, 1, 'ops work', 2, 2);
                            INSERT INTO task_history (team_id, task_id, task_number, version, actor_id, kind) VALUES (1, 1, 1, 1, 1, 'created'), (2, 2, 1, 1, 2, 'created');
                            """)
                    let tenantTables = [
                        "teams": "id", "memberships": "team_id", "task_counters": "team_id", "tasks": "team_id", "task_history": "team_id",
                    ]
                    for (table, column) in tenantTables {
                        let counts = try await connection.withTransaction(settings: ["taskbase.user_id": "2"]) { connection in
                            try await connection.execute("SET LOCAL ROLE taskbase_app")
                            let foreign = try await connection.query(PGQuery(unsafeSQL: "SELECT count(*) AS n FROM \(table) WHERE \(column) = 1"))
                                .first!.decode(Int64.self, "n")
                            let all = try await connection.query(PGQuery(unsafeSQL: "SELECT count(*) AS n FROM \(table)")).first!.decode(
                                Int64.self, "n")
                            return (foreign, all)
                        }
                        #expect(counts.0 == 0, "\(table) shows a foreign team's rows")
                        #expect(counts.1 == 1, "\(table) should show exactly Bob's own team's row")
                    }
                    let nobody = try await connection.withTransaction { connection in
                        try await connection.execute("SET LOCAL ROLE taskbase_app")
                        return try await connection.query("SELECT count(*) AS n FROM tasks").first!.decode(Int64.self, "n")
                    }
                    #expect(nobody == 0, "with no acting user nothing is visible")
                    await #expect {
                        try await connection.withTransaction(settings: ["taskbase.user_id": "2"]) { connection in
                            try await connection.execute("SET LOCAL ROLE taskbase_app")
                            try await connection.execute(
                                "INSERT INTO tasks (team_id, number, title, created_by, updated_by) VALUES (1, 2, 'planted', 2, 2)")
                        }
                    } throws: { ($0 as? PGError)?.code == .insufficientPrivilege }
                    // No DDL: the tables belong to taskbase_owner (0005), and the schema grants taskbase_app no CREATE.
                    for statement in [
                        "CREATE TABLE sneaky (id int)", "ALTER TABLE tasks ADD COLUMN sneaky int", "DROP TABLE tasks",
                        "ALTER TABLE tasks OWNER TO taskbase_app",
                    ] {
                        await #expect("\(statement)") {
                            try await connection.withTransaction(settings: ["taskbase.user_id": "2"]) { connection in
                                try await connection.execute("SET LOCAL ROLE taskbase_app")
                                try await connection.execute(PGQuery(unsafeSQL: statement))
                            }
                        } throws: { ($0 as? PGError)?.code == .insufficientPrivilege }
                    }
                }
            }
        }
    }
}
