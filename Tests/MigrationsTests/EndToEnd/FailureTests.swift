import Synchronization
import Foundation
import Migrations
import PGStore
import TaskbaseTestSupport
import Testing

extension EndToEnd {
    @Suite("Failed and drifted migrations")
    struct FailureTests {
        @Test("a migration whose third statement fails leaves database and history as before, names file and line; fixed, it applies")
        func thirdStatementFails() async throws {
            let folder = try MigrationFolder(["0001_base.sql": "CREATE TABLE base (id int);\n"])
            defer { folder.delete() }
            try await TestDatabase.with(migrated: false, purpose: "migrations") { database in
                try await MigrationRunner(directory: folder.directory, config: database.config).up()
                try folder.write(
                    "0002_three_steps.sql",
                    """
                    -- migrate:up
                    CREATE TABLE step_one (id int);
                    INSERT INTO base VALUES (1);
                    SELECT id
                      FROM no_such_table;
                    CREATE TABLE step_four (id int);
                    """)
                let before = try await database.catalogDump()
                let failed = try await TaskMigrateProcess.run(["up"], databaseURL: database.url, folder: folder)
                #expect(failed.status == 1)
                #expect(
                    failed.stderr.contains("0002_three_steps.sql:5:8: ERROR 42P01: relation \"no_such_table\" does not exist"), "\(failed.stderr)")
                #expect(failed.stderr.contains("rolled back"))
                #expect(try await database.appliedVersions() == [1])
                #expect(try await database.catalogDump() == before)
                #expect(try await database.scalar("SELECT count(*)::text FROM base") == "0")

                try folder.write(
                    "0002_three_steps.sql",
                    """
                    -- migrate:up
                    CREATE TABLE step_one (id int);
                    INSERT INTO base VALUES (1);
                    SELECT id
                      FROM base;
                    CREATE TABLE step_four (id int);
                    """)
                let fixed = try await TaskMigrateProcess.run(["up"], databaseURL: database.url, folder: folder)
                #expect(fixed.status == 0, "\(fixed.stderr)")
                #expect(try await database.appliedVersions() == [1, 2])
                #expect(try await database.scalar("SELECT count(*)::text FROM base") == "1")
            }
        }

        @Test("a failure without a server position names the statement's first line")
        func noPosition() async throws {
            let folder = try MigrationFolder(["0001_dup.sql": "CREATE TABLE d (id int PRIMARY KEY);\n\nINSERT INTO d VALUES (1),\n  (1);\n"])
            defer { folder.delete() }
            try await TestDatabase.with(migrated: false, purpose: "migrations") { database in
                let failed = try await TaskMigrateProcess.run(["up"], databaseURL: database.url, folder: folder)
                #expect(failed.status == 1)
                #expect(failed.stderr.contains("0001_dup.sql:3:1: ERROR 23505"), "\(failed.stderr)")
            }
        }

        @Test("editing an applied file makes verify and up fail with exit 6 naming the file")
        func editedFile() async throws {
            let folder = try MigrationFolder.project()
            defer { folder.delete() }
            try await TestDatabase.with(migrated: false, purpose: "migrations") { database in
                try await MigrationRunner(directory: folder.directory, config: database.config).up(to: 3)
                let path = folder.path + "/0003_add_task_category.sql"
                try folder.write("0003_add_task_category.sql", try String(contentsOfFile: path, encoding: .utf8) + "\n-- a harmless-looking edit\n")
                for command in [["verify"], ["up"], ["down"]] {
                    let outcome = try await TaskMigrateProcess.run(command, databaseURL: database.url, folder: folder)
                    #expect(outcome.status == 6, "\(command)")
                    #expect(outcome.stderr.contains("0003_add_task_category.sql: changed after it was applied"), "\(outcome.stderr)")
                }
                #expect(try await database.appliedVersions() == [1, 2, 3])
            }
        }

        @Test("a deleted applied file and a file numbered below the newest applied one are drift (exit 6)")
        func missingAndOutOfOrder() async throws {
            let folder = try MigrationFolder(["0001_a.sql": "SELECT 1;\n", "0003_c.sql": "SELECT 3;\n"])
            defer { folder.delete() }
            try await TestDatabase.with(migrated: false, purpose: "migrations") { database in
                try await MigrationRunner(directory: folder.directory, config: database.config).up()
                try folder.write("0002_b.sql", "SELECT 2;\n")
                try folder.remove("0001_a.sql")
                let outcome = try await TaskMigrateProcess.run(["up"], databaseURL: database.url, folder: folder)
                #expect(outcome.status == 6)
                #expect(outcome.stderr.contains("0001_a.sql: applied at"))
                #expect(outcome.stderr.contains("0002_b.sql: not applied, yet numbered below 3"))
                let status = try await TaskMigrateProcess.run(["status"], databaseURL: database.url, folder: folder)
                #expect(status.stdout.contains("missing") && status.stdout.contains("out_of_order"))
            }
        }

        @Test("a badly named .sql file is rejected with exit 6 before anything runs")
        func badName() async throws {
            let folder = try MigrationFolder(["0001_a.sql": "SELECT 1;\n", "2_second.sql": "SELECT 2;\n"])
            defer { folder.delete() }
            try await TestDatabase.with(migrated: false, purpose: "migrations") { database in
                let outcome = try await TaskMigrateProcess.run(["up"], databaseURL: database.url, folder: folder)
                #expect(outcome.status == 6)
                #expect(outcome.stderr.contains("2_second.sql: not a migration file name"))
                #expect(try await database.appliedVersions().isEmpty)
            }
        }
    }
}

extension EndToEnd {
    @Suite("Killed and interrupted runs")
    struct KilledRunTests {
        @Test(
            "a migration killed with SIGKILL, or stopped with Ctrl-C or SIGTERM, mid-way leaves database and history as before; the next up applies it",
            arguments: [SIGKILL, SIGINT, SIGTERM])
        func stopped(signal: Int32) async throws {
            let folder = try MigrationFolder([
                "0001_base.sql": "CREATE TABLE base (id int);\n",
                // Long enough that a loaded machine's polling sees it running before it ends
                // (1.5 s was not, now and then); after SIGKILL the test waits the rest of it out.
                "0002_slow.sql": "CREATE TABLE half_done (id int);\nINSERT INTO base VALUES (1);\nSELECT pg_sleep(4);\n",
            ])
            defer { folder.delete() }
            try await TestDatabase.with(migrated: false, purpose: "migrations") { database in
                try await MigrationRunner(directory: folder.directory, config: database.config).up(to: 1)
                let process = Process()
                process.executableURL = URL(fileURLWithPath: TaskMigrateProcess.executable)
                process.arguments = ["up", "--dir", folder.path]
                process.environment = ["DATABASE_URL": database.url]
                process.standardOutput = FileHandle.nullDevice
                process.standardError = FileHandle.nullDevice
                let exited = AsyncStream<Int32> { continuation in
                    process.terminationHandler = {
                        continuation.yield($0.terminationStatus); continuation.finish()
                    }
                }
                try process.run()
                // Stop it once its migration is visibly running on the server.
                try await waitUntil("the migration's statement running on the server") {
                    try await database.scalar(
                        "SELECT count(*)::text FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep%' AND datname = current_database()") == "1"
                }
                kill(process.processIdentifier, signal)
                let status = await exited.first { _ in true }
                #expect(status == (signal == SIGKILL ? SIGKILL : 128 + signal))
                // After SIGKILL the server rolls the orphaned transaction back once its statement ends.
                try await waitUntil("the killed runner's session to end") {
                    try await database.scalar(
                        "SELECT count(*)::text FROM pg_stat_activity WHERE application_name = 'taskmigrate' AND datname = current_database()")
                        == "0"
                }
                #expect(try await database.appliedVersions() == [1])
                #expect(try await database.scalar("SELECT to_regclass('half_done')::text") == nil)
                #expect(try await database.scalar("SELECT count(*)::text FROM base") == "0")
                #expect(try await MigrationRunner(directory: folder.directory, config: database.config).up().map(\.version) == [2])
            }
        }
    }
}

extension EndToEnd.KilledRunTests {
    /// The running `up` task, cancelled from the runner's own progress events.
    final class RunHandle: Sendable {
        let task = Mutex<Task<[MigrationFile], any Error>?>(nil)
        func cancel() { task.withLock { $0?.cancel() } }
    }

    @Test("a run stopped between two migrations starts no other: the first stays applied, the rest are not")
    func stoppedBetweenMigrations() async throws {
        let folder = try MigrationFolder([
            "0001_first.sql": "CREATE TABLE first (id int);\nSELECT pg_sleep(0.3);\n",
            "0002_second.sql": "CREATE TABLE second (id int);\n",
            "0003_third.sql": "CREATE TABLE third (id int);\n",
        ])
        defer { folder.delete() }
        try await TestDatabase.with(migrated: false, purpose: "migrations") { (database) async throws in
            let handle = RunHandle()
            // Stopped the moment the first has committed, as a signal arriving then would: the
            // next migrations' statements once reached the server anyway (a cancel sent to an
            // idle session is ignored) and committed after the signal.
            let runner = MigrationRunner(directory: folder.directory, config: database.config) { event in
                if case .finished(let file, _, _) = event, file.version == 1 { handle.cancel() }
            }
            let task = Task { try await runner.up() }
            handle.task.withLock { $0 = task }
            let outcome = await task.result
            #expect(throws: CancellationError.self) { try outcome.get() }
            #expect(try await database.appliedVersions() == [1])
            #expect(try await database.scalar("SELECT to_regclass('second')::text") == nil)
            #expect(try await MigrationRunner(directory: folder.directory, config: database.config).up().map(\.version) == [2, 3])
        }
    }
}

extension EndToEnd {
    @Suite("Permissions")
    struct PermissionTests {
        @Test("a role that may not create tables gets exit 4 and a clear message: what was refused and the login it takes")
        func permissionDenied() async throws {
            let folder = try MigrationFolder(["0001_a.sql": "CREATE TABLE a (id int);\n"])
            defer { folder.delete() }
            try await TestDatabase.with(migrated: false, purpose: "migrations") { database in
                let role = try await TestRole.create(attributes: "", memberOf: nil)
                try await role.dropAfter {
                    let outcome = try await TaskMigrateProcess.run(["up"], databaseURL: role.url(for: database), folder: folder)
                    #expect(outcome.status == 4, "\(outcome.stderr)")
                    #expect(outcome.stderr.contains("42501"))
                    #expect(
                        outcome.stderr.contains(
                            "; log in as a member of taskbase_owner (up to 0005, as a superuser or a CREATEROLE role that owns the database), see docs/operations.md"
                        ), "\(outcome.stderr)")
                    #expect(!outcome.stderr.contains(role.password))
                }
            }
        }
    }
}
