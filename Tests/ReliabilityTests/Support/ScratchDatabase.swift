import Foundation
import PGStore
import TaskbaseTestSupport

/// A database of its own for one test (made by `TestDatabases`), dropped as soon as the test
/// is done with it, so that servers and failed runs do not pile them up.
struct ScratchDatabase: Sendable {
    /// Where it is.
    let config: PGConfig

    /// The database as a `postgres://` URI, for child processes and `scripts/faults`.
    var url: String {
        get throws { try Self.uri(config) }
    }

    /// Creates a fresh database (migrated to the newest schema if asked), runs `body` with it,
    /// and drops it (with its connections) whatever `body` did.
    static func with<T>(migrated: Bool, _ body: (ScratchDatabase) async throws -> T) async throws -> T {
        let config =
            migrated
            ? try await TestDatabases.createMigrated(purpose: "reliability")
            : try await TestDatabases.create(purpose: "reliability")
        let drop = PGQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(PGQuery.quoteIdentifier(config["dbname"] ?? "")) WITH (FORCE)")
        do {
            let value = try await body(ScratchDatabase(config: config))
            try await execute(drop, on: try TestDatabases.admin())
            return value
        } catch {
            try? await execute(drop, on: try TestDatabases.admin())
            throw error
        }
    }

    /// A config that no URI can express.
    struct NotAURI: Error, CustomStringConvertible {
        var config: PGConfig
        var description: String { "cannot write \(config) as a postgres:// URI" }
    }

    /// A single-host `config` as a `postgresql://user:password@host:port/dbname` URI.
    static func uri(_ config: PGConfig) throws -> String {
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

    /// Runs `body` on a connection to this database, closed afterwards.
    func withConnection<T>(_ body: (PGConnection) async throws -> T) async throws -> T {
        try await Self.withConnection(to: config, body)
    }
}
