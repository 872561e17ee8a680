import Foundation
import Migrations
import PGStore

/// A database of this test process's own on the server `scripts/test` names, migrated to the
/// newest schema once; its URL is what the `taskctl` processes get as `DATABASE_URL`.
enum TestDatabase {
    struct NotConfigured: Error, CustomStringConvertible {
        var description: String { "TASKBASE_TEST_ADMIN_URL is not set: run the tests with scripts/test" }
    }

    /// The connection string of the migrated database.
    static let url = Task<String, any Error> {
        guard let adminURL = ProcessInfo.processInfo.environment["TASKBASE_TEST_ADMIN_URL"] else { throw NotConfigured() }
        let admin = try PGConfig(connectionString: adminURL)
        let name = "taskctl_e2e_\(getpid())_\(UInt32.random(in: 0...UInt32.max))"
        let connection = try await PGConnection.connect(admin)
        try await connection.execute(PGQuery(unsafeSQL: "CREATE DATABASE \(PGQuery.quoteIdentifier(name))"))
        await connection.close()
        var config = admin
        config["dbname"] = name
        let migrations = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("migrations").path
        _ = try await MigrationRunner(directory: MigrationDirectory(path: migrations), config: config).up()
        guard adminURL.hasPrefix("postgres"), var components = URLComponents(string: adminURL) else {
            return adminURL + " dbname=\(name)"
        }
        components.path = "/" + name
        return components.string ?? adminURL
    }
}
