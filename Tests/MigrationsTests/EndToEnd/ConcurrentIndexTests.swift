import Foundation
import Migrations
import PGStore
import TaskbaseTestSupport
import Testing

extension EndToEnd {
    @Suite("Concurrent index builds left by killed or failed runs")
    struct ConcurrentIndexTests {
        @Test("a build still running from a killed run is waited for, and the index it made is recorded, not built again")
        func killedRunsBuild() async throws {
            let folder = try MigrationFolder([
                "0001_t.sql": "CREATE TABLE t (v int);\nINSERT INTO t SELECT generate_series(1, 1000);\n",
                "0002_t_v_idx.sql": "-- migrate:no-transaction\nCREATE INDEX CONCURRENTLY t_v_idx ON t (v);\n",
            ])
            defer { folder.delete() }
            try await TestDatabase.with(migrated: false, purpose: "migrations") { database in
                try await MigrationRunner(directory: folder.directory, config: database.config).up(to: 1)
                // The killed run's backend: its build waits for an old snapshot, as a long one would.
                let snapshot = try await PGConnection.connect(database.config)
                defer { Task { await snapshot.close() } }
                try await snapshot.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
                try await snapshot.execute("SELECT 1")
                let orphan = try await PGConnection.connect(database.config)
                defer { Task { await orphan.close() } }
                let build = Task { try await orphan.simpleQuery(unsafeSQL: "CREATE INDEX CONCURRENTLY t_v_idx ON t (v)") }
                try await waitUntil("the orphaned build to run") {
                    try await database.scalar("SELECT count(*)::text FROM pg_stat_progress_create_index") == "1"
                }

                let run = Task { try await TaskMigrateProcess.run(["up"], databaseURL: database.url, folder: folder) }
                try await Task.sleep(for: .seconds(2))
                try await snapshot.execute("COMMIT")
                _ = try await build.value
                let outcome = try await run.value
                #expect(outcome.status == 0, "\(outcome.stderr)")
                #expect(outcome.stderr.contains("a build of index t_v_idx is still running in server process"), "\(outcome.stderr)")
                #expect(outcome.stderr.contains("index t_v_idx already exists and is valid"), "\(outcome.stderr)")
                #expect(try await database.appliedVersions() == [1, 2])
                let verify = try await TaskMigrateProcess.run(["verify"], databaseURL: database.url, folder: folder)
                #expect(verify.status == 0, "\(verify.stderr)")
            }
        }

        @Test("rolling back a concurrent drop rebuilds the index even where a failed build left it INVALID")
        func downRebuildsOverLeftover() async throws {
            let folder = try MigrationFolder([
                "0001_t.sql": "CREATE TABLE t (v int);\nINSERT INTO t VALUES (1), (1);\nCREATE INDEX t_v_idx ON t (v);\n",
                "0002_drop_t_v_idx.sql":
                    "-- migrate:no-transaction\n-- migrate:up\nDROP INDEX CONCURRENTLY IF EXISTS t_v_idx;\n"
                    + "-- migrate:down\nCREATE INDEX CONCURRENTLY IF NOT EXISTS t_v_idx ON t (v);\n",
            ])
            defer { folder.delete() }
            try await TestDatabase.with(migrated: false, purpose: "migrations") { database in
                let runner = MigrationRunner(directory: folder.directory, config: database.config)
                _ = try await runner.up()
                // A rebuild that failed part way (here: unique over duplicates) leaves the name taken
                // by an INVALID index, which IF NOT EXISTS took for the index: down reported success
                // and left an index that serves no query.
                try await database.withConnection { connection in
                    _ = try? await connection.simpleQuery(unsafeSQL: "CREATE UNIQUE INDEX CONCURRENTLY t_v_idx ON t (v)")
                }
                #expect(try await database.scalar("SELECT indisvalid::text FROM pg_index WHERE indexrelid = 't_v_idx'::regclass") == "false")
                #expect(try await runner.down(to: 1).map(\.version) == [2])
                #expect(try await database.scalar("SELECT indisvalid::text FROM pg_index WHERE indexrelid = 't_v_idx'::regclass") == "true")
                #expect(try await database.appliedVersions() == [1])
            }
        }

        @Test("a failed concurrent build names the INVALID index it leaves; status and verify show it")
        func failedBuildNamed() async throws {
            let folder = try MigrationFolder([
                "0001_t.sql": "CREATE TABLE t (v int);\nINSERT INTO t VALUES (1), (1);\n",
                "0002_t_v_key.sql": "-- migrate:no-transaction\nCREATE UNIQUE INDEX CONCURRENTLY t_v_key ON t (v);\n",
            ])
            defer { folder.delete() }
            try await TestDatabase.with(migrated: false, purpose: "migrations") { database in
                let up = try await TaskMigrateProcess.run(["up"], databaseURL: database.url, folder: folder)
                #expect(up.status != 0)
                #expect(up.stderr.contains("the INVALID index t_v_key is left behind"), "\(up.stderr)")
                let status = try await TaskMigrateProcess.run(["status"], databaseURL: database.url, folder: folder)
                #expect(status.stdout.contains("INVALID index t_v_key on t"), "\(status.stdout)")
                let verify = try await TaskMigrateProcess.run(["verify"], databaseURL: database.url, folder: folder)
                #expect(verify.status == 6, "\(verify.stderr)")
                #expect(verify.stderr.contains("INVALID index t_v_key on t"), "\(verify.stderr)")

                // The JSON forms report it as the text does, with the same exit codes.
                let statusJSON = try await TaskMigrateProcess.run(["status", "--json"], databaseURL: database.url, folder: folder)
                #expect(statusJSON.status == 0, "\(statusJSON.stderr)")
                let statusDocument = try JSONSerialization.jsonObject(with: Data(statusJSON.stdout.utf8)) as? [String: Any]
                #expect(statusDocument?["invalid_indexes"] as? [[String: String]] == [["index": "t_v_key", "table": "t"]], "\(statusJSON.stdout)")
                let verifyJSON = try await TaskMigrateProcess.run(["verify", "--json"], databaseURL: database.url, folder: folder)
                #expect(verifyJSON.status == 6, "\(verifyJSON.stderr)")
                let verifyDocument = try JSONSerialization.jsonObject(with: Data(verifyJSON.stdout.utf8)) as? [String: Any]
                #expect(verifyDocument?["verified"] as? Bool == false, "\(verifyJSON.stdout)")
                #expect(verifyDocument?["invalid_indexes"] as? [[String: String]] == [["index": "t_v_key", "table": "t"]])
                #expect(verifyDocument?["drifted"] as? [Any] != nil)
            }
        }

        @Test("status --json and verify --json list no INVALID index when there is none, verify --json says verified; every key is present")
        func noInvalidIndexJSON() async throws {
            let folder = try MigrationFolder(["0001_t.sql": "CREATE TABLE t (v int);\n"])
            defer { folder.delete() }
            try await TestDatabase.with(migrated: false, purpose: "migrations") { database in
                let before = try await TaskMigrateProcess.run(["status", "--json"], databaseURL: database.url, folder: folder)
                let empty = try JSONSerialization.jsonObject(with: Data(before.stdout.utf8)) as? [String: Any]
                #expect(empty?.keys.contains("current_version") == true && empty?["current_version"] is NSNull, "\(before.stdout)")
                #expect(try await TaskMigrateProcess.run(["up"], databaseURL: database.url, folder: folder).status == 0)
                let status = try await TaskMigrateProcess.run(["status", "--json"], databaseURL: database.url, folder: folder)
                let statusDocument = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
                #expect((statusDocument?["invalid_indexes"] as? [Any])?.isEmpty == true, "\(status.stdout)")
                let verify = try await TaskMigrateProcess.run(["verify", "--json"], databaseURL: database.url, folder: folder)
                #expect(verify.status == 0, "\(verify.stderr)")
                let verifyDocument = try JSONSerialization.jsonObject(with: Data(verify.stdout.utf8)) as? [String: Any]
                #expect(verifyDocument?["verified"] as? Bool == true && verifyDocument?["applied"] as? Int == 1, "\(verify.stdout)")
            }
        }
    }
}
