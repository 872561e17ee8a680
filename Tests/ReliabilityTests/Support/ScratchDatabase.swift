import Foundation
import Migrations
import PGStore

/// A database of its own for one test on the server `scripts/test` names, dropped afterwards
/// whatever the test did; optionally migrated to the newest schema.
struct ScratchDatabase: Sendable {
    /// The tests were started without a server to work on.
    struct NotConfigured: Error, CustomStringConvertible {
        var description: String { "TASKBASE_TEST_ADMIN_URL is not set to a postgres:// URI: run the tests with scripts/test" }
    }

    /// The database's name.
    let name: String
    /// A connection string for it (the admin URL with the database replaced), for child processes.
    let url: String
    /// The same as a config, for in-process connections.
    let config: PGConfig

    /// The server's maintenance database URL, from `scripts/test`.
    static func adminURL() throws -> String {
        guard let url = ProcessInfo.processInfo.environment["TASKBASE_TEST_ADMIN_URL"], !url.isEmpty else { throw NotConfigured() }
        return url
    }

    /// Creates a fresh database, runs `body` with it, and drops it (with its connections).
    static func with<T>(migrated: Bool, _ body: (ScratchDatabase) async throws -> T) async throws -> T {
        let adminURL = try adminURL()
        let admin = try PGConfig(connectionString: adminURL)
        let name = "reliability_\(getpid())_\(UInt32.random(in: 0...UInt32.max))"
        try await execute(PGQuery(unsafeSQL: "CREATE DATABASE \(PGQuery.quoteIdentifier(name))"), on: admin)
        let database = try ScratchDatabase(name: name, url: Self.url(adminURL, database: name))
        do {
            if migrated { _ = try await MigrationRunner(directory: MigrationDirectory(path: PackagePaths.migrations.path), config: database.config).up() }
            let value = try await body(database)
            try await drop(name, admin: admin)
            return value
        } catch {
            try? await drop(name, admin: admin)
            throw error
        }
    }

    private init(name: String, url: String) throws {
        self.name = name
        self.url = url
        self.config = try PGConfig(connectionString: url)
    }

    /// `url` (a postgres:// URI) naming `database` instead of its own.
    static func url(_ url: String, database: String) throws -> String {
        guard var components = URLComponents(string: url), components.scheme?.hasPrefix("postgres") == true else { throw NotConfigured() }
        components.path = "/" + database
        guard let result = components.string else { throw NotConfigured() }
        return result
    }

    /// Runs one statement on a connection of its own.
    static func execute(_ query: PGQuery, on config: PGConfig) async throws {
        _ = try await withConnection(to: config) { try await $0.execute(query) }
    }

    /// Runs `body` on a connection of its own to `config`, closed afterwards.
    static func withConnection<T>(to config: PGConfig, _ body: (PGConnection) async throws -> T) async throws -> T {
        let connection = try await PGConnection.connect(config)
        defer { Task { await connection.close() } }
        return try await body(connection)
    }

    private static func drop(_ name: String, admin: PGConfig) async throws {
        try await execute(PGQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(PGQuery.quoteIdentifier(name)) WITH (FORCE)"), on: admin)
    }

    /// Runs `body` on a connection to this database, closed afterwards.
    func withConnection<T>(_ body: (PGConnection) async throws -> T) async throws -> T {
        try await Self.withConnection(to: config, body)
    }
}
