import Foundation
import Migrations
import PGStore
import Synchronization
@testable import TaskStorePG

/// A database of its own for this test process, migrated to the newest schema once, and a
/// small connection source over it.
enum PostgresTestDatabase {
    struct NotConfigured: Error, CustomStringConvertible {
        var description: String { "TASKBASE_TEST_ADMIN_URL is not set: run the tests with scripts/test" }
    }

    /// Creates and migrates the database on first use.
    static let shared = Task<PGConfig, any Error> {
        guard let adminURL = ProcessInfo.processInfo.environment["TASKBASE_TEST_ADMIN_URL"] else { throw NotConfigured() }
        let admin = try PGConfig(connectionString: adminURL)
        let name = "taskbase_store_\(getpid())_\(UInt32.random(in: 0...UInt32.max))"
        let connection = try await PGConnection.connect(admin)
        try await connection.execute(PGQuery(unsafeSQL: "CREATE DATABASE \(PGQuery.quoteIdentifier(name))"))
        await connection.close()
        var config = admin
        config["dbname"] = name
        let migrations = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("migrations").path
        _ = try await MigrationRunner(directory: MigrationDirectory(path: migrations), config: config).up()
        return config
    }

    /// A store over the migrated database.
    static func store() async throws -> TaskStorePG {
        try await storeTask.value
    }

    private static let storeTask = Task<TaskStorePG, any Error> {
        try await TaskStorePG.open(config: shared.value)
    }
}
