import CommandLineToolkit
import PGStore

/// What whoever holds the database login can leave behind that outlives a new password:
/// session defaults of the login's own (`ALTER ROLE <login> [IN DATABASE <db>] SET`, which
/// PostgreSQL lets any role give itself: `default_transaction_read_only`, a `search_path`
/// without the schema, planner switches) and large objects (anyone may make them; Taskbase
/// makes none, so the app never removes them). taskserve warns of both at start and in
/// `--check`; docs/operations.md says what to do after a leak.
public struct LoginTraces: Sendable, Equatable {
    /// The login (`session_user`).
    public var login: String
    /// The names of the login's own session defaults, in this database or all, sorted. Never
    /// their values: one an operator set may hold something secret.
    public var settings: [String]
    /// How many large objects the login owns.
    public var largeObjects: Int64

    /// Reads them with the login's own rights (the catalogs say them to every role).
    public static func read(_ pool: PGPool) async throws -> LoginTraces {
        try await pool.withConnection { connection in
            let row = try await connection.query(
                """
                SELECT r.rolname::text AS login,
                       (SELECT count(*) FROM pg_catalog.pg_largeobject_metadata WHERE lomowner = r.oid) AS large_objects
                  FROM pg_catalog.pg_roles r
                 WHERE r.rolname = session_user
                """)[0]
            let defaults = try await PGRoleDefaults.read(on: connection, rolesWhere: "r.rolname = session_user")
            return LoginTraces(
                login: try row.decode(String.self, "login"), settings: defaults.first?.settings ?? [],
                largeObjects: try row.decode(Int64.self, "large_objects"))
        }
    }

    /// What to tell an operator, a sentence each: nothing when the login left nothing.
    public var warnings: [String] {
        let role = PGQuery.quoteIdentifier(login)
        var warnings: [String] = []
        if !settings.isEmpty {
            warnings.append(
                PGRoleDefaults(role: login, settings: settings).warning
                    + ", and keep settings you want on the database (ALTER DATABASE ... SET) or in the connection string's options, "
                    + "which the login cannot change (docs/operations.md, \"If the runtime login leaked\")")
        }
        if largeObjects > 0 {
            warnings.append(
                "the database login \(login) owns \(Counted.phrase(Int(largeObjects), "large object")), which Taskbase never makes: "
                    + "whoever holds the login made them; look at them and remove them "
                    + "(SELECT lo_unlink(oid) FROM pg_largeobject_metadata WHERE lomowner = '\(role)'::regrole) "
                    + "(docs/operations.md, \"If the runtime login leaked\")")
        }
        return warnings
    }
}
