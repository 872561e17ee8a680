import Foundation
import PGStore

/// A database for tests: the run's own (the one `scripts/test` made and names in
/// `DATABASE_URL`), or one of a test's own (`with`), made by `TestDatabases` and dropped as soon
/// as the test is done with it. Linked only by test targets.
public struct TestDatabase: Sendable {
    /// Where it is.
    public let config: PGConfig
    /// Its name.
    public var name: String { config["dbname"] ?? "" }
    /// The database as a `postgresql://` URI, for child processes and `scripts/faults`.
    public let url: String

    /// The database at `config`; a config no URI can express is an error.
    public init(config: PGConfig) throws {
        self.config = config
        url = try TestDatabases.uri(config)
    }

    /// Creates a fresh database (migrated to the newest schema if asked), runs `body` with it,
    /// and drops it (with its connections) whatever `body` did.
    public static func with<T>(migrated: Bool, purpose: String, _ body: (TestDatabase) async throws -> T) async throws -> T {
        let config =
            migrated ? try await TestDatabases.createMigrated(purpose: purpose) : try await TestDatabases.create(purpose: purpose)
        do {
            let value = try await body(try TestDatabase(config: config))
            try await TestDatabases.drop(config)
            return value
        } catch {
            try? await TestDatabases.drop(config)
            throw error
        }
    }

    /// Runs `body` on a connection to this database, closed afterwards.
    @discardableResult
    public func withConnection<T>(_ body: (PGConnection) async throws -> T) async throws -> T {
        try await PGConnection.with(config, body)
    }

    /// A connection of its own holding `lock` (a `LOCK TABLE ...` statement) in an open
    /// transaction, named "the blocker" in `pg_stat_activity`: what a test blocks a program's
    /// statements with. The caller ends the transaction and closes it.
    public func holding(_ lock: String) async throws -> PGConnection {
        var config = config
        config["application_name"] = "the blocker"
        let connection = try await PGConnection.connect(config)
        try await connection.execute("BEGIN")
        try await connection.execute(PGQuery(unsafeSQL: lock))
        return connection
    }

    /// Sessions of this database (other than the one asking) waiting for a lock while running a
    /// statement like `pattern`.
    public func lockWaiters(running pattern: String = "%") async throws -> Int {
        try await withConnection { connection in
            try await connection.query(
                """
                SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
                   AND wait_event_type = 'Lock' AND query LIKE \(pattern)
                """)[0].decode(Int.self, "n")
        }
    }

    /// The run's database: `DATABASE_URL`, as `scripts/test` sets it (empty, not migrated).
    public static func config() throws -> PGConfig {
        guard ProcessInfo.processInfo.environment["DATABASE_URL"] != nil else { throw TestDatabases.NotConfigured() }
        return try PGConfig.fromEnvironment()
    }

    /// Runs `body` with a fresh connection to the run's database, closing it afterwards.
    public static func withConnection<T>(_ body: (PGConnection) async throws -> T) async throws -> T {
        try await PGConnection.with(config(), body)
    }
}
