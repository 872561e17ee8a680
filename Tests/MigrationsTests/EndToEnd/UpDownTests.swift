import Foundation
import Migrations
import PGStore
import TaskbaseTestSupport
import Testing

extension EndToEnd {
    @Suite("up, down, status and baseline on a real server")
    struct UpDownTests {
        @Test("from an empty database up applies everything; a second up does nothing; down then up returns to the same schema")
        func fullCycle() async throws {
            let folder = try MigrationFolder.project()
            defer { folder.delete() }
            try await TestDatabase.with(migrated: false, purpose: "migrations") { database in
                let first = try await TaskMigrateProcess.run(["up"], databaseURL: database.url, folder: folder)
                #expect(first.status == 0, "\(first.stderr)")
                #expect(first.stdout.contains("applied 0001_core_schema.sql"))
                #expect(try await database.appliedVersions() == MigrationFolder.projectVersions)

                let status = try await TaskMigrateProcess.run(["status", "--json"], databaseURL: database.url, folder: folder)
                #expect(status.status == 0)
                let document = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
                let migrations = document?["migrations"] as? [[String: Any]] ?? []
                #expect(migrations.count == MigrationFolder.projectVersions.count)
                #expect(
                    migrations.allSatisfy {
                        $0["state"] as? String == "applied" && ($0["checksum"] as? String)?.count == 64 && $0["applied_at"] is String
                    })

                let schema = try await database.catalogDump()
                #expect(schema.contains("column tasks.category text notnull=f "))

                let second = try await TaskMigrateProcess.run(["up"], databaseURL: database.url, folder: folder)
                #expect(second.status == 0)
                #expect(!second.stdout.contains("applied 0"))
                #expect(second.stdout.contains("up to date at version \(MigrationFolder.laterVersion(0))"))

                // Dropping every table needs --yes when no one is at a terminal to type yes.
                let applied = try await database.appliedVersions()
                let unconfirmed = try await TaskMigrateProcess.run(["down", "--to", "0"], databaseURL: database.url, folder: folder)
                #expect(unconfirmed.status == 2, "\(unconfirmed.stderr)")
                #expect(
                    unconfirmed.stderr.contains("drops data (0005_owner_role.sql") || unconfirmed.stderr.contains("drops data ("),
                    "\(unconfirmed.stderr)")
                #expect(unconfirmed.stderr.contains("pass --yes"), "\(unconfirmed.stderr)")
                #expect(try await database.appliedVersions() == applied)
                let down = try await TaskMigrateProcess.run(["down", "--to", "0", "--yes"], databaseURL: database.url, folder: folder)
                #expect(down.status == 0, "\(down.stderr)")
                #expect(try await database.appliedVersions().isEmpty)
                #expect(try await database.scalar("SELECT to_regclass('tasks')::text") == nil)

                let again = try await TaskMigrateProcess.run(["up"], databaseURL: database.url, folder: folder)
                #expect(again.status == 0, "\(again.stderr)")
                #expect(try await database.catalogDump() == schema)
            }
        }

        @Test("after the programs roll back, their older folder's up --allow-newer leaves the newer migrations and exits 0; else all refuse")
        func olderReleaseAfterRollback() async throws {
            // The compose file's migrate service of the older release ran `up` against a
            // database the newer release had migrated: "the file is gone", exit 6, and the
            // services waiting on it never started.
            let folder = try MigrationFolder.project()
            defer { folder.delete() }
            try folder.write(
                MigrationFolder.laterName(1, "newer"), "-- migrate:up\nCREATE TABLE newer (id int);\n-- migrate:down\nDROP TABLE newer;\n")
            try await TestDatabase.with(migrated: false, purpose: "migrations") { database in
                #expect(try await TaskMigrateProcess.run(["up"], databaseURL: database.url, folder: folder).status == 0)
                try folder.remove(MigrationFolder.laterName(1, "newer"))
                // Unasked, it is drift: the folder may have lost its newest file (or be the wrong one).
                let refused = try await TaskMigrateProcess.run(["up"], databaseURL: database.url, folder: folder)
                #expect(refused.status == 6 && refused.stderr.contains("--allow-newer"), "\(refused.stderr)")
                #expect(try await TaskMigrateProcess.run(["verify"], databaseURL: database.url, folder: folder).status == 6)
                let up = try await TaskMigrateProcess.run(["up", "--allow-newer"], databaseURL: database.url, folder: folder)
                #expect(up.status == 0, "\(up.stderr)")
                #expect(up.stdout.contains("up to date at version \(MigrationFolder.laterVersion(1)): 1 applied migration up to"), "\(up.stdout)")
                let status = try await TaskMigrateProcess.run(["status"], databaseURL: database.url, folder: folder)
                #expect(
                    status.status == 0 && status.stdout.contains("ahead") && status.stdout.contains("1 newer than this folder"), "\(status.stdout)")
                let down = try await TaskMigrateProcess.run(["down", "--yes"], databaseURL: database.url, folder: folder)
                #expect(down.status != 0 && down.stderr.contains("newer release"), "\(down.stderr)")
                #expect(try await database.appliedVersions() == MigrationFolder.projectVersions + [MigrationFolder.laterVersion(1)])
            }
        }

        @Test("down on a database never migrated rolls back nothing and leaves it as it was, without a history table")
        func downOnNeverMigrated() async throws {
            let folder = try MigrationFolder.project()
            defer { folder.delete() }
            try await TestDatabase.with(migrated: false, purpose: "migrations") { database in
                for arguments in [["down"], ["down", "--to", "0", "--yes"]] {
                    let run = try await TaskMigrateProcess.run(arguments, databaseURL: database.url, folder: folder)
                    #expect(run.status == 0, "\(arguments): \(run.stderr)")
                    #expect(run.stdout == "nothing to roll back\n")
                    // An empty history table would make taskserve take the database for one behind, not never migrated.
                    #expect(try await database.scalar("SELECT to_regclass('public.schema_migrations')::text") == nil, "\(arguments)")
                }
            }
        }

        @Test("down without --to rolls back only the newest migration; up --to stops at the version")
        func stepwise() async throws {
            let folder = try MigrationFolder.project()
            defer { folder.delete() }
            try await TestDatabase.with(migrated: false, purpose: "migrations") { database in
                let runner = MigrationRunner(directory: folder.directory, config: database.config)
                #expect(try await runner.up(to: 2).map(\.version) == [1, 2])
                #expect(try await database.appliedVersions() == [1, 2])
                #expect(try await runner.down().map(\.version) == [2])
                #expect(try await database.appliedVersions() == [1])
                let plan = try await runner.plan()
                #expect(plan.entries.map(\.state) == [.applied] + Array(repeating: .pending, count: MigrationFolder.projectVersions.count - 1))
            }
        }

        @Test("up refuses a file lint flags, naming file:line, unless it says -- lint:allow")
        func lintGate() async throws {
            let folder = try MigrationFolder([
                "0001_table.sql": "CREATE TABLE items (id int, label text);\n",
                "0002_index.sql": "-- migrate:up\nCREATE INDEX items_label ON items (label);\n",
            ])
            defer { folder.delete() }
            try await TestDatabase.with(migrated: false, purpose: "migrations") { database in
                let refused = try await TaskMigrateProcess.run(["up"], databaseURL: database.url, folder: folder)
                #expect(refused.status == 6)
                #expect(refused.stderr.contains("0002_index.sql:2:1: create-index-not-concurrently"))
                #expect(try await database.appliedVersions().isEmpty)

                try folder.write(
                    "0002_index.sql",
                    "-- lint:allow create-index-not-concurrently (tiny table)\n-- migrate:up\nCREATE INDEX items_label ON items (label);\n")
                let allowed = try await TaskMigrateProcess.run(["up"], databaseURL: database.url, folder: folder)
                #expect(allowed.status == 0, "\(allowed.stderr)")
                #expect(try await database.appliedVersions() == [1, 2])
            }
        }

        @Test("down refuses, before changing anything, when a migration has no down section")
        func irreversible() async throws {
            let folder = try MigrationFolder([
                "0001_a.sql": "-- migrate:up\nCREATE TABLE a (id int);\n-- migrate:down\nDROP TABLE a;\n",
                "0002_b.sql": "CREATE TABLE b (id int);\n",
            ])
            defer { folder.delete() }
            try await TestDatabase.with(migrated: false, purpose: "migrations") { database in
                try await MigrationRunner(directory: folder.directory, config: database.config).up()
                let outcome = try await TaskMigrateProcess.run(["down", "--to", "0"], databaseURL: database.url, folder: folder)
                #expect(outcome.status == 6)
                #expect(outcome.stderr.contains("0002_b.sql"))
                #expect(try await database.appliedVersions() == [1, 2])
            }
        }

        @Test("baseline records migrations as applied without running them, only on an empty history")
        func baseline() async throws {
            let folder = try MigrationFolder([
                "0001_a.sql": "CREATE TABLE a (id int);\n",
                "0002_b.sql": "CREATE TABLE b (id int);\n",
                "0003_c.sql": "CREATE TABLE c (id int);\n",
            ])
            defer { folder.delete() }
            try await TestDatabase.with(migrated: false, purpose: "migrations") { database in
                let outcome = try await TaskMigrateProcess.run(["baseline", "2"], databaseURL: database.url, folder: folder)
                #expect(outcome.status == 0, "\(outcome.stderr)")
                #expect(try await database.appliedVersions() == [1, 2])
                #expect(try await database.scalar("SELECT to_regclass('a')::text") == nil)
                let up = try await TaskMigrateProcess.run(["up"], databaseURL: database.url, folder: folder)
                #expect(up.stdout.contains("applied 0003_c.sql"))
                let again = try await TaskMigrateProcess.run(["baseline", "3"], databaseURL: database.url, folder: folder)
                #expect(again.status == 5)
            }
        }
    }
}
