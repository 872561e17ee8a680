/// The session defaults a role carries (`ALTER ROLE <role> [IN DATABASE <db>] SET`), which
/// every later session of the role starts with. PostgreSQL lets a role give them to itself, and
/// they outlive a new password: whoever held a login can leave them behind.
public struct PGRoleDefaults: Sendable, Equatable {
    /// The role.
    public var role: String
    /// The names of its defaults in the connection's database or in all, sorted. Never their
    /// values: one an operator set may hold something secret.
    public var settings: [String]

    /// Builds one.
    public init(role: String, settings: [String]) {
        self.role = role
        self.settings = settings
    }

    /// The defaults of each role that `condition` (over `pg_catalog.pg_roles r`) picks and that
    /// carries any, by name; the catalogs show them to every role.
    public static func read(on connection: PGConnection, rolesWhere condition: PGQuery) async throws -> [PGRoleDefaults] {
        let rows = try await connection.query(
            """
            SELECT r.rolname::text AS role,
                   array_agg(DISTINCT split_part(setting, '=', 1) ORDER BY split_part(setting, '=', 1)) AS settings
              FROM pg_catalog.pg_roles r
              JOIN pg_catalog.pg_db_role_setting s
                ON s.setrole = r.oid
               AND s.setdatabase IN (0, (SELECT oid FROM pg_catalog.pg_database WHERE datname = pg_catalog.current_database()))
             CROSS JOIN LATERAL pg_catalog.unnest(s.setconfig) AS setting
             WHERE \(condition)
             GROUP BY r.rolname
             ORDER BY r.rolname
            """)
        return try rows.map { PGRoleDefaults(role: try $0.decode(String.self, "role"), settings: try $0.decode([String].self, "settings")) }
    }

    /// What to tell an operator: the role's defaults by name, and the statements that remove
    /// them (for whoever may alter the role: a superuser, or one with CREATEROLE over it).
    public var warning: String {
        let quoted = PGQuery.quoteIdentifier(role)
        return "the database login \(role) has session defaults of its own (ALTER ROLE ... SET): \(settings.joined(separator: ", ")); "
            + "whoever holds the login can set these, and they outlive a new password: if you did not set them, remove them "
            + "(ALTER ROLE \(quoted) RESET ALL; ALTER ROLE \(quoted) IN DATABASE ... RESET ALL)"
    }
}
