import Foundation
import Migrations
import PGStore
import Synchronization
import TaskbaseTestSupport
import Testing

extension EndToEnd {
    @Suite("Lock timeouts and retries")
    struct LockTimeoutTimingTests {
        private static let files = [
            "0001_table.sql": "CREATE TABLE busy (id int);\n",
            "0002_change.sql": "ALTER TABLE busy ADD COLUMN note text;\n",
        ]

        private func settings() -> MigrationSettings {
            var settings = MigrationSettings()
            settings.lockTimeout = .milliseconds(200)
            settings.lockRetries = 2
            settings.initialBackoff = .milliseconds(100)
            return settings
        }

        @Test("a table held in ACCESS EXCLUSIVE: up waits no longer than lock_timeout per try, retries, then fails naming the blocker")
        func blockedThroughout() async throws {
            let folder = try MigrationFolder(Self.files)
            defer { folder.delete() }
            try await TestDatabase.with(migrated: false, purpose: "migrations") { database in
                let runner = MigrationRunner(directory: folder.directory, config: database.config, settings: settings())
                try await runner.up(to: 1)
                try await database.withConnection { holder in
                    try await holder.execute("BEGIN")
                    try await holder.execute("LOCK TABLE busy IN ACCESS EXCLUSIVE MODE")
                    let clock = ContinuousClock()
                    let start = clock.now
                    await #expect {
                        try await runner.up()
                    } throws: { error in
                        guard case let .lockTimeout(file, attempts, _, blocker, leftover) = error as? MigrationError, leftover == nil else {
                            return false
                        }
                        return file.hasSuffix("0002_change.sql") && attempts == 3 && blocker?.pid == holder.backendPID
                            && blocker?.heldModes.contains("AccessExclusiveLock") == true && blocker?.object == "busy"
                    }
                    // 3 tries of 200 ms plus about 100 + 200 ms of backoff (and a loaded machine's
                    // slack); a blocking wait would never end.
                    let elapsed = clock.now - start
                    #expect(elapsed >= .milliseconds(600) && elapsed < .seconds(10), "\(elapsed)")
                    try await holder.execute("ROLLBACK")
                }
                #expect(try await database.appliedVersions() == [1])
            }
        }

        @Test("the command line reports the blocking session and exits 5")
        func blockedCommandLine() async throws {
            let folder = try MigrationFolder(Self.files)
            defer { folder.delete() }
            try await TestDatabase.with(migrated: false, purpose: "migrations") { database in
                try await MigrationRunner(directory: folder.directory, config: database.config).up(to: 1)
                try await database.withConnection { holder in
                    try await holder.execute("BEGIN")
                    try await holder.execute("LOCK TABLE busy IN ACCESS EXCLUSIVE MODE")
                    let outcome = try await TaskMigrateProcess.run(
                        ["up", "--lock-timeout", "200ms", "--lock-retries", "1"], databaseURL: database.url, folder: folder)
                    #expect(outcome.status == 5)
                    #expect(
                        outcome.stderr.contains("0002_change.sql: could not get its locks within lock_timeout 200ms in 2 tries"), "\(outcome.stderr)")
                    #expect(outcome.stderr.contains("blocked by pid \(holder.backendPID)"))
                    #expect(outcome.stderr.contains("AccessExclusiveLock on busy"))
                    try await holder.execute("ROLLBACK")
                }
            }
        }

        @Test("released in time, the retried migration succeeds")
        func releasedInTime() async throws {
            let folder = try MigrationFolder(Self.files)
            defer { folder.delete() }
            try await TestDatabase.with(migrated: false, purpose: "migrations") { database in
                var settings = settings()
                settings.lockRetries = 5
                let retries = RetryCounter()
                let runner = MigrationRunner(directory: folder.directory, config: database.config, settings: settings) { event in
                    if case .retrying = event { retries.increment() }
                }
                try await runner.up(to: 1)
                let holder = try await PGConnection.connect(database.config)
                try await holder.execute("BEGIN")
                try await holder.execute("LOCK TABLE busy IN ACCESS EXCLUSIVE MODE")
                let release = Task {
                    try? await waitUntil("a lock-timeout retry", limit: .seconds(10), every: .milliseconds(25)) { retries.value > 0 }
                    try await holder.execute("ROLLBACK")
                    await holder.close()
                }
                #expect(try await runner.up().map(\.version) == [2])
                try await release.value
                #expect(retries.value >= 1)
                #expect(try await database.appliedVersions() == [1, 2])
            }
        }
    }
}

/// Counts events from the runner's callback, which may run on any thread.
final class RetryCounter: Sendable {
    private let count = Mutex(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

extension EndToEnd {
    @Suite("Concurrent index builds that time out")
    struct ConcurrentIndexTimingTests {
        @Test(
            "a CREATE INDEX CONCURRENTLY stuck behind an open writer fails naming its INVALID leftover; the next up drops it and builds a valid index"
        )
        func leftoverIndex() async throws {
            let folder = try MigrationFolder([
                "0001_table.sql": "CREATE TABLE busy (id int);\n",
                "0002_index.sql": "-- migrate:no-transaction\nCREATE INDEX CONCURRENTLY busy_id_idx ON busy (id);\n",
            ])
            defer { folder.delete() }
            try await TestDatabase.with(migrated: false, purpose: "migrations") { database in
                var settings = MigrationSettings()
                settings.lockTimeout = .milliseconds(200)
                settings.lockRetries = 1
                settings.initialBackoff = .milliseconds(50)
                let runner = MigrationRunner(directory: folder.directory, config: database.config, settings: settings)
                try await runner.up(to: 1)
                try await database.withConnection { writer in
                    try await writer.execute("BEGIN")
                    try await writer.execute("INSERT INTO busy VALUES (1)")
                    await #expect {
                        try await runner.up()
                    } throws: { error in
                        guard case let .lockTimeout(_, attempts, _, blocker, leftover) = error as? MigrationError else { return false }
                        return attempts == 2 && blocker?.pid == writer.backendPID && leftover == "busy_id_idx"
                            && String(describing: error).contains("DROP INDEX CONCURRENTLY busy_id_idx")
                    }
                    try await writer.execute("COMMIT")
                }
                #expect(try await database.scalar("SELECT indisvalid::text FROM pg_index WHERE indexrelid = 'busy_id_idx'::regclass") == "false")
                #expect(try await runner.up().map(\.version) == [2])
                #expect(try await database.scalar("SELECT indisvalid::text FROM pg_index WHERE indexrelid = 'busy_id_idx'::regclass") == "true")
            }
        }
    }
}
