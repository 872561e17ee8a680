import Foundation
import Migrations
import PGStore
import TaskbaseTestSupport
import Testing

@Suite("taskmigrate under concurrency and crashes", .timeLimit(.minutes(3)))
struct MigrationFaultTests {
    /// What a migration run may change: the history and the relations of the public schema.
    struct SchemaSnapshot: Equatable {
        var history: [String]
        var relations: [String]

        static func take(_ database: TestDatabase) async throws -> SchemaSnapshot {
            try await database.withConnection { connection in
                let hasHistory = try await connection.query("SELECT to_regclass('public.schema_migrations') IS NOT NULL AS present")[0].decode(
                    Bool.self, "present")
                let history =
                    hasHistory
                    ? try await connection.query("SELECT version::text || ' ' || checksum AS entry FROM schema_migrations ORDER BY version")
                        .map { try $0.decode(String.self, "entry") }
                    : []
                let relations = try await connection.query(
                    """
                    SELECT relkind::text || ' ' || relname AS entry FROM pg_class
                     WHERE relnamespace = 'public'::regnamespace ORDER BY relname
                    """
                ).map { try $0.decode(String.self, "entry") }
                return SchemaSnapshot(history: history, relations: relations)
            }
        }
    }

    static let taskmigrate = BuiltProgram.url("taskmigrate")

    /// The advisory lock a test holds while its probe migration waits for it ("prob" in ASCII;
    /// not the migration lock's key).
    static let probeGate: Int64 = 0x7072_6F62

    static func taskmigrate(_ arguments: [String], on database: TestDatabase) throws -> RunningProgram {
        try BuiltProgram.start(
            taskmigrate, arguments: arguments,
            environment: BuiltProgram.environment(adding: ["DATABASE_URL": database.url, "TASKBASE_MIGRATIONS_DIR": PackagePaths.migrations.path]))
    }

    /// The migration files of the project, numbered.
    static func migrationFileCount() throws -> Int {
        try MigrationDirectory(path: PackagePaths.migrations.path).load().count
    }

    @Test("five `taskmigrate up` started at once on a fresh database apply each migration exactly once, and all exit 0")
    func fiveConcurrentRunners() async throws {
        try await TestDatabase.with(migrated: false, purpose: "reliability") { database in
            let runners = try (0..<5).map { _ in try Self.taskmigrate(["up"], on: database) }
            var outcomes: [ProgramRun] = []
            for runner in runners { outcomes.append(await runner.finish()) }
            for outcome in outcomes { #expect(outcome.exitCode == 0, "\(outcome)") }
            let applied = try await database.withConnection { connection in
                try await connection.query("SELECT version, count(*) OVER (PARTITION BY version) AS times FROM schema_migrations ORDER BY version")
                    .map { (try $0.decode(Int64.self, "version"), try $0.decode(Int.self, "times")) }
            }
            #expect(applied.count == (try Self.migrationFileCount()))
            #expect(applied.allSatisfy { $0.1 == 1 })
            let verify = try await Self.taskmigrate(["verify"], on: database).finish()
            #expect(verify.exitCode == 0, "\(verify)")
        }
    }

    @Test("a migration killed with SIGKILL mid-way leaves the database and its history as they were; a normal up then succeeds")
    func killedMigration() async throws {
        try await TestDatabase.with(migrated: false, purpose: "reliability") { database in
            let setup = try await Self.taskmigrate(["up"], on: database).finish()
            try #require(setup.exitCode == 0, "\(setup)")
            let before = try await SchemaSnapshot.take(database)

            // The project's migrations plus one that creates a table, then waits on the test's
            // gate: it cannot commit before it is killed, however late this test gets to kill it.
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reliability-migrations-\(UUID().uuidString)")
            try FileManager.default.copyItem(at: PackagePaths.migrations, to: folder)
            defer { try? FileManager.default.removeItem(at: folder) }
            let newest = try MigrationDirectory(path: PackagePaths.migrations.path).load().map(\.version).max() ?? 0
            let slow = String(format: "%04d_slow_probe.sql", newest + 1)
            try """
            -- migrate:up
            CREATE TABLE reliability_probe (id bigint PRIMARY KEY);
            INSERT INTO reliability_probe VALUES (1);
            SELECT pg_advisory_xact_lock(\(Self.probeGate));
            """.write(to: folder.appendingPathComponent(slow), atomically: true, encoding: .utf8)

            try await database.withConnection { gate in
                _ = try await gate.query("SELECT pg_advisory_lock(\(Self.probeGate))")
                // A lock timeout longer than the test's time limit: the probe waits, never retries.
                let runner = try Self.taskmigrate(["up", "--dir", folder.path, "--lock-timeout", "5min"], on: database)
                // Kill it once the table exists (uncommitted) and the probe waits on the gate.
                try await waitUntil("the slow migration to wait on the gate", limit: .seconds(60)) {
                    try await gate.query(
                        "SELECT count(*) AS n FROM pg_stat_activity WHERE \(Int64(gate.backendPID)) = ANY(pg_blocking_pids(pid))"
                    )[0].decode(Int.self, "n") > 0
                }
                kill(runner.processIdentifier, SIGKILL)
                let killed = await runner.finish()
                #expect(killed.killedBySignal && killed.exitCode == SIGKILL)
            }

            // The gate open (its session closed), the server rolls back when it notices the
            // client is gone: once the probe has the lock and finds no COMMIT coming.
            try await database.withConnection { connection in
                try await waitUntil("the killed migration's sessions to end", limit: .seconds(60)) {
                    try await connection.query(
                        """
                        SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'taskmigrate'
                        """)[0].decode(Int.self, "n") == 0
                }
            }
            #expect(try await SchemaSnapshot.take(database) == before)

            let rerun = try await Self.taskmigrate(["up", "--dir", folder.path], on: database).finish()
            #expect(rerun.exitCode == 0, "\(rerun)")
            let after = try await SchemaSnapshot.take(database)
            #expect(after.history.count == before.history.count + 1)
            #expect(after.relations.contains("r reliability_probe"))
        }
    }
}
