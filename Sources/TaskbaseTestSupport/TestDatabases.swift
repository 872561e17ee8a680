import Foundation
import Migrations
import PGStore

/// Databases for tests, on the server `scripts/test` names in `TASKBASE_TEST_ADMIN_URL`.
/// Every name starts with `taskbase_test_`, so `scripts/test` drops them after the run.
/// Linked only by test targets.
public enum TestDatabases {
    /// The tests were not started by `scripts/test`.
    public struct NotConfigured: Error, CustomStringConvertible {
        public var description: String { "TASKBASE_TEST_ADMIN_URL or DATABASE_URL is not set: run the tests with scripts/test" }
        public init() {}
    }

    /// The repository's `migrations/` folder.
    public static let migrationsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("migrations").path

    /// The server's maintenance database, for creating others.
    public static func admin() throws -> PGConfig {
        let environment = ProcessInfo.processInfo.environment
        guard let url = environment["TASKBASE_TEST_ADMIN_URL"] else { throw NotConfigured() }
        // The same settings the programs read (TASKBASE_STATEMENT_CACHE=0 behind PgBouncer).
        var settings = environment.filter { $0.key.hasPrefix("TASKBASE_") }
        settings["DATABASE_URL"] = url
        return try PGConfig.fromEnvironment(settings, dotEnvDirectory: "/nonexistent")
    }

    /// A new, empty database named after `purpose`.
    public static func create(purpose: String) async throws -> PGConfig {
        let admin = try admin()
        let name = "taskbase_test_\(purpose)_\(getpid())_\(UInt32.random(in: 0...UInt32.max))"
        try await PGConnection.with(admin) { connection in
            try await connection.execute(PGQuery(unsafeSQL: "CREATE DATABASE \(PGQuery.quoteIdentifier(name))"))
        }
        var config = admin
        config["dbname"] = name
        return config
    }

    /// A new database with every migration applied.
    public static func createMigrated(purpose: String) async throws -> PGConfig {
        let config = try await create(purpose: purpose)
        _ = try await MigrationRunner(directory: MigrationDirectory(path: migrationsDirectory), config: config).up()
        return config
    }

    /// Runs one statement on a connection of its own to `config`.
    public static func execute(_ query: PGQuery, on config: PGConfig) async throws {
        _ = try await PGConnection.with(config) { try await $0.execute(query) }
    }

    /// Drops the database `config` names, with its connections.
    public static func drop(_ config: PGConfig) async throws {
        let drop = PGQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(PGQuery.quoteIdentifier(config["dbname"] ?? "")) WITH (FORCE)")
        _ = try await PGConnection.with(try admin()) { try await $0.execute(drop) }
    }

    /// Makes the database `config` names anew on its own server (a cluster of a test's own):
    /// dropped with its connections when an earlier run left it, whose tables and migration
    /// history are that run's, then created empty.
    public static func recreate(_ config: PGConfig) async throws {
        var maintenance = config
        maintenance["dbname"] = "postgres"
        let name = PGQuery.quoteIdentifier(config["dbname"] ?? "")
        try await execute(PGQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"), on: maintenance)
        try await execute(PGQuery(unsafeSQL: "CREATE DATABASE \(name)"), on: maintenance)
    }

    /// One migrated database for the whole test process, made on first use.
    public static let shared = Task<PGConfig, any Error> { try await createMigrated(purpose: "shared") }

    /// The environment a child program needs to reach the database `config` names. When
    /// `TASKBASE_TEST_PGBOUNCER` (`host:port`, set by `scripts/faults pgbouncer run`) is set,
    /// the child goes through PgBouncer in transaction mode, its change feed listening directly
    /// (`TASKBASE_LISTEN_URL`), with the statement cache off.
    public static func childEnvironment(_ config: PGConfig) -> [String: String] {
        guard let bouncer = ProcessInfo.processInfo.environment["TASKBASE_TEST_PGBOUNCER"],
            let colon = bouncer.lastIndex(of: ":")
        else {
            return ["DATABASE_URL": connectionString(config)]
        }
        var through = config
        through["host"] = String(bouncer[..<colon])
        through["hostaddr"] = nil
        through["port"] = String(bouncer[bouncer.index(after: colon)...])
        return [
            "DATABASE_URL": connectionString(through), "TASKBASE_LISTEN_URL": connectionString(config),
            "TASKBASE_STATEMENT_CACHE": "0",
        ]
    }

    /// A config that no URI can express.
    public struct NotAURI: Error, CustomStringConvertible {
        public var config: PGConfig
        public var description: String { "cannot write \(config) as a postgres:// URI" }
    }

    /// A single-host `config` as a `postgresql://user:password@host:port/dbname` URI.
    public static func uri(_ config: PGConfig) throws -> String {
        var components = URLComponents()
        components.scheme = "postgresql"
        components.user = config["user"]
        components.password = config["password"]
        components.host = config["host"] ?? config["hostaddr"]
        components.port = config["port"].flatMap { Int($0) }
        components.path = "/" + (config["dbname"] ?? "")
        guard let uri = components.string else { throw NotAURI(config: config) }
        return uri
    }

    /// `config` as a `DATABASE_URL` for child processes (libpq key=value form, password included).
    public static func connectionString(_ config: PGConfig) -> String {
        config.parameters.map { "\($0.key)='\($0.value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'"))'" }
            .joined(separator: " ")
    }
}
