import Foundation
import PGStore

/// A database of its own for one test, created from `TASKBASE_TEST_ADMIN_URL` (which
/// scripts/test exports) and dropped afterwards, so tests run in parallel without meeting.
struct FreshDatabase: Sendable {
    struct NotConfigured: Error, CustomStringConvertible {
        var description: String { "TASKBASE_TEST_ADMIN_URL is not set: run the tests with scripts/test" }
    }

    /// The database's name.
    let name: String
    /// A postgres:// URL for it, for child processes.
    let url: String
    /// The same, for connections made in the test.
    let config: PGConfig

    /// Creates a database, runs `body`, drops the database (also when `body` throws).
    static func with<T>(_ body: (FreshDatabase) async throws -> T) async throws -> T {
        guard let adminURL = ProcessInfo.processInfo.environment["TASKBASE_TEST_ADMIN_URL"] else { throw NotConfigured() }
        let admin = try PGConfig(connectionString: adminURL)
        let name = "taskbase_mig_\(UUID().uuidString.prefix(8).lowercased())"
        _ = try await withConnection(admin) { try await $0.execute(PGQuery(unsafeSQL: "CREATE DATABASE \(name)")) }
        var components = URLComponents(string: adminURL)!
        components.path = "/" + name
        let database = FreshDatabase(name: name, url: components.string!, config: try PGConfig(connectionString: components.string!))
        do {
            let value = try await body(database)
            try await drop(name, admin)
            return value
        } catch {
            try? await drop(name, admin)
            throw error
        }
    }

    private static func drop(_ name: String, _ admin: PGConfig) async throws {
        _ = try await withConnection(admin) { try await $0.execute(PGQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(name) WITH (FORCE)")) }
    }

    /// Runs `body` with a connection to this database.
    @discardableResult
    func withConnection<T>(_ body: (PGConnection) async throws -> T) async throws -> T {
        try await Self.withConnection(config, body)
    }

    private static func withConnection<T>(_ config: PGConfig, _ body: (PGConnection) async throws -> T) async throws -> T {
        try await PGConnection.with(config, body)
    }

    /// One text value from a query.
    func scalar(_ query: PGQuery) async throws -> String? {
        try await withConnection { connection in
            try await connection.query(query).first?.decode(String?.self, at: 0)
        }
    }

    /// Versions recorded in the history, ascending.
    func appliedVersions() async throws -> [Int64] {
        try await withConnection { connection in
            let present = try await connection.query("SELECT to_regclass('schema_migrations') IS NOT NULL AS present").first?.decode(
                Bool.self, "present")
            guard present == true else { return [] }
            return try await connection.query("SELECT version FROM schema_migrations ORDER BY version").map { try $0.decode(Int64.self, "version") }
        }
    }

    /// A text dump of the public schema's catalog: columns, indexes, constraints, policies,
    /// row security, functions and grants, sorted, to compare schemas.
    func catalogDump() async throws -> String {
        try await scalar(
            """
            SELECT string_agg(line, E'\\n' ORDER BY line) FROM (
              SELECT format('column %s.%s %s notnull=%s default=%s identity=%s', c.relname, a.attname,
                            format_type(a.atttypid, a.atttypmod), a.attnotnull, pg_get_expr(d.adbin, d.adrelid), a.attidentity) AS line
                FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
                LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
               WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped
              UNION ALL SELECT 'index ' || indexdef FROM pg_indexes WHERE schemaname = 'public'
              UNION ALL SELECT format('constraint %s %s %s', conrelid::regclass, conname, pg_get_constraintdef(oid))
                FROM pg_constraint WHERE connamespace = 'public'::regnamespace
              UNION ALL SELECT format('policy %s %s %s %s %s %s', tablename, policyname, cmd, roles, qual, with_check)
                FROM pg_policies WHERE schemaname = 'public'
              UNION ALL SELECT format('rls %s %s', relname, relrowsecurity) FROM pg_class
               WHERE relnamespace = 'public'::regnamespace AND relkind = 'r'
              UNION ALL SELECT format('function %s', pg_get_functiondef(oid)) FROM pg_proc WHERE pronamespace = 'public'::regnamespace
              UNION ALL SELECT format('grant %s %s %s', table_name, grantee, privilege_type)
                FROM information_schema.role_table_grants WHERE table_schema = 'public'
            ) lines
            """) ?? ""
    }
}
