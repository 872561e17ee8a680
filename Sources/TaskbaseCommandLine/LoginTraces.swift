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
        let row = try await pool.withConnection { connection in
            try await connection.query(
                """
                SELECT r.rolname::text AS login,
                       coalesce((SELECT array_agg(DISTINCT split_part(setting, '=', 1) ORDER BY split_part(setting, '=', 1))
                                   FROM pg_catalog.pg_db_role_setting s, unnest(s.setconfig) AS setting
                                  WHERE s.setrole = r.oid
                                    AND s.setdatabase IN (0, (SELECT oid FROM pg_catalog.pg_database WHERE datname = current_database()))),
                                '{}') AS settings,
                       (SELECT count(*) FROM pg_catalog.pg_largeobject_metadata WHERE lomowner = r.oid) AS large_objects
                  FROM pg_catalog.pg_roles r
                 WHERE r.rolname = session_user
                """)[0]
        }
        return LoginTraces(
            login: try row.decode(String.self, "login"), settings: try row.decode([String].self, "settings"),
            largeObjects: try row.decode(Int64.self, "large_objects"))
    }

    /// What to tell an operator, a sentence each: nothing when the login left nothing.
    public var warnings: [String] {
        let role = PGQuery.quoteIdentifier(login)
        var warnings: [String] = []
        if !settings.isEmpty {
            warnings.append(
                "the database login \(login) has session defaults of its own (ALTER ROLE ... SET): \(settings.joined(separator: ", ")); "
                    + "whoever holds the login can set these, and they outlive a new password: if you did not set them, remove them "
                    + "(ALTER ROLE \(role) RESET ALL; ALTER ROLE \(role) IN DATABASE ... RESET ALL), and keep settings you want on the "
                    + "database (ALTER DATABASE ... SET) or in the connection string's options, which the login cannot change "
                    + "(docs/operations.md, \"If the runtime login leaked\")")
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
