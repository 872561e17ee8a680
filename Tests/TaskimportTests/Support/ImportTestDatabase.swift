import Foundation
import Migrations
import PGStore
import TaskCore
import TaskStorePG

/// A database of this test process's own, created from `TASKBASE_TEST_ADMIN_URL` (exported by
/// scripts/test) and migrated once; the taskimport processes get its URL as `DATABASE_URL`.
enum ImportTestDatabase {
    struct NotConfigured: Error, CustomStringConvertible {
        var description: String { "TASKBASE_TEST_ADMIN_URL is not set: run the tests with scripts/test" }
    }

    /// The URL of the migrated database.
    static let url = Task<String, any Error> {
        guard let adminURL = ProcessInfo.processInfo.environment["TASKBASE_TEST_ADMIN_URL"] else { throw NotConfigured() }
        let name = "taskbase_import_\(getpid())_\(UInt32.random(in: 0...UInt32.max))"
        let admin = try await PGConnection.connect(try PGConfig(connectionString: adminURL))
        try await admin.execute(PGQuery(unsafeSQL: "CREATE DATABASE \(PGQuery.quoteIdentifier(name))"))
        await admin.close()
        let url = databaseURL(adminURL, name: name)
        let migrations = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("migrations").path
        _ = try await MigrationRunner(directory: MigrationDirectory(path: migrations), config: try PGConfig(connectionString: url)).up()
        return url
    }

    /// A service over the migrated database, shared by the tests of this process.
    static func service() async throws -> TaskService {
        TaskService(store: try await store.value)
    }

    private static let store = Task<TaskStorePG, any Error> {
        try await TaskStorePG.open(config: PGConfig(connectionString: url.value), maxConnections: 4)
    }

    /// `adminURL` pointing at database `name`: the path of a URI, or `dbname=` of a key=value string.
    private static func databaseURL(_ adminURL: String, name: String) -> String {
        guard adminURL.contains("://"), var components = URLComponents(string: adminURL) else {
            return adminURL + " dbname=\(name)"
        }
        components.path = "/" + name
        return components.string ?? adminURL
    }
}
