import Foundation
import Migrations
import PGStore
import TaskbaseTestSupport
import Testing

extension EndToEnd {
    @Suite("The owner role taskbase_owner")
    struct OwnerRoleTests {
        @Test(
            "after up every table, sequence, index and function belongs to taskbase_owner, also what a later migration of the same run makes; down past 0005 hands them back"
        )
        func ownsTheSchema() async throws {
            let folder = try MigrationFolder.project()
            defer { folder.delete() }
            try folder.write(
                MigrationFolder.laterName(1, "later_notes"),
                """
                -- migrate:up
                CREATE TABLE later_notes (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, body text NOT NULL);
                -- migrate:down
                DROP TABLE later_notes;
                """)
            try await TestDatabase.with(migrated: false, purpose: "migrations") { database in
                let runner = MigrationRunner(directory: folder.directory, config: database.config)
                let all = MigrationFolder.projectVersions + [MigrationFolder.laterVersion(1)]
                #expect(try await runner.up().map(\.version) == all)
                let owners = try await Self.owners(database)
                for object in [
                    "table users", "table teams", "table memberships", "table task_counters", "table tasks", "table task_history",
                    "table schema_migrations", "table later_notes", "sequence tasks_id_seq", "sequence later_notes_id_seq",
                    "index tasks_team_category_idx", "function taskbase_current_user_id()", "function taskbase_visible_team_ids()",
                ] {
                    #expect(owners[object] == "taskbase_owner", "\(object)")
                }
                #expect(owners.values.allSatisfy { $0 == "taskbase_owner" }, "\(owners)")

                let migrator = try #require(try await database.scalar("SELECT session_user::text"))
                #expect(try await runner.down(to: 4).map(\.version) == all.filter { $0 > 4 }.reversed())
                let handedBack = try await Self.owners(database)
                #expect(handedBack["table tasks"] == migrator)
                #expect(handedBack.values.allSatisfy { $0 == migrator }, "\(handedBack)")

                #expect(try await runner.up().map(\.version) == all.filter { $0 > 4 })
                #expect(try await Self.owners(database).values.allSatisfy { $0 == "taskbase_owner" })
            }
        }

        @Test("a login role that is only a member of taskbase_owner applies later migrations; what they make belongs to taskbase_owner")
        func memberLoginMigrates() async throws {
            let folder = try MigrationFolder.project()
            defer { folder.delete() }
            try await TestDatabase.with(migrated: false, purpose: "migrations") { database in
                // Migrating first makes taskbase_owner exist (on a fresh cluster it does not yet).
                try await MigrationRunner(directory: folder.directory, config: database.config).up()
                let deploy = try await TestRole.create(attributes: "NOSUPERUSER NOCREATEDB NOCREATEROLE", memberOf: "taskbase_owner")
                try await deploy.dropAfter {
                    try folder.write(
                        MigrationFolder.laterName(1, "deploy_notes"), "-- migrate:up\nCREATE TABLE deploy_notes (id bigint PRIMARY KEY, body text);\n"
                    )
                    try folder.write(
                        MigrationFolder.laterName(2, "task_estimate"), "-- migrate:up\nALTER TABLE tasks ADD COLUMN estimate_minutes integer;\n")
                    try folder.write(
                        MigrationFolder.laterName(3, "deploy_audit"),
                        "-- migrate:no-transaction\n-- migrate:up\nCREATE TABLE deploy_audit (id bigint);\n")

                    let outcome = try await TaskMigrateProcess.run(["up"], databaseURL: deploy.url(for: database), folder: folder)
                    #expect(outcome.status == 0, "\(outcome.stderr)")
                    #expect(outcome.stdout.contains("now at version \(MigrationFolder.laterVersion(3))"), "\(outcome.stdout)")

                    let owners = try await Self.owners(database)
                    #expect(owners["table deploy_notes"] == "taskbase_owner")
                    #expect(owners["table deploy_audit"] == "taskbase_owner")
                    #expect(owners.values.allSatisfy { $0 == "taskbase_owner" }, "\(owners)")
                    #expect(
                        try await database.scalar(
                            "SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'tasks'::regclass AND attname = 'estimate_minutes'"
                        ) == "integer")
                    let recorders = try await database.scalar(
                        "SELECT string_agg(DISTINCT split_part(applied_by, ' ', 1), ',') FROM schema_migrations WHERE version >= \(MigrationFolder.laterVersion(1))"
                    )
                    #expect(recorders == deploy.name)
                }
            }
        }

        @Test(
            "in PostgreSQL 15 a CREATEROLE login that owns the database, no superuser, applies every migration and becomes a member of taskbase_owner"
        )
        func createRoleLoginBootstraps() async throws {
            let folder = try MigrationFolder.project()
            defer { folder.delete() }
            let creator = try await TestRole.create(attributes: "NOSUPERUSER NOCREATEDB CREATEROLE", memberOf: nil)
            try await creator.dropAfter {
                try await TestDatabase.with(migrated: false, purpose: "migrations") { database in
                    try await database.withConnection {
                        try await $0.execute(PGQuery(unsafeSQL: "ALTER DATABASE \(database.name) OWNER TO \(creator.name)"))
                    }
                    let outcome = try await TaskMigrateProcess.run(["up"], databaseURL: creator.url(for: database), folder: folder)
                    #expect(outcome.status == 0, "\(outcome.stderr)")
                    #expect(try await Self.owners(database).values.allSatisfy { $0 == "taskbase_owner" })
                    let member = try await database.scalar(
                        """
                        SELECT EXISTS (SELECT FROM pg_auth_members WHERE roleid = 'taskbase_owner'::regrole
                                          AND member = (SELECT oid FROM pg_roles WHERE rolname = \(creator.name)))::text
                        """)
                    #expect(member == "true")
                }
            }
        }

        /// `kind name` → owner for every table, sequence, index and function of the schema.
        private static func owners(_ database: TestDatabase) async throws -> [String: String] {
            try await database.withConnection { connection in
                let rows = try await connection.query(
                    """
                    SELECT CASE c.relkind WHEN 'S' THEN 'sequence' WHEN 'i' THEN 'index' ELSE 'table' END || ' ' || c.relname AS object,
                           c.relowner::regrole::text AS owner
                      FROM pg_catalog.pg_class c
                     WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p', 'S', 'i', 'v', 'm', 'f')
                    UNION ALL
                    SELECT 'function ' || p.oid::regprocedure::text, p.proowner::regrole::text
                      FROM pg_catalog.pg_proc p WHERE p.pronamespace = 'public'::regnamespace
                    """)
                return Dictionary(uniqueKeysWithValues: try rows.map { (try $0.decode(String.self, "object"), try $0.decode(String.self, "owner")) })
            }
        }
    }
}
