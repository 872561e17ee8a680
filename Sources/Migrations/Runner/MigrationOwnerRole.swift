import PGStore

/// The role every migration runs as once `0005_owner_role.sql` has handed the schema to it.
///
/// Objects belong to the role that creates them, so after the handover each migration runs
/// under `SET ROLE taskbase_owner`: what it creates is the owner role's, whether a superuser
/// or a login that is only a member of taskbase_owner runs `taskmigrate`. Before the
/// handover (a fresh database, up to 0005 itself) the role may not exist or hold no rights on
/// the schema, so migrations run as the session user, as they always did. The handover is
/// read from the history table's owner: 0005 moves it, and its down section moves it back.
enum MigrationOwnerRole {
    /// The owner role `0005_owner_role.sql` creates.
    static let name = "taskbase_owner"

    /// Runs `body` with the session's role set to the owner role when the handover happened
    /// here and the session user may act as it, and the role reset afterwards.
    static func adopting<T>(on connection: PGConnection, _ body: () async throws -> T) async throws -> T {
        guard try await applies(on: connection) else { return try await body() }
        _ = try await connection.query("SELECT set_config('role', \(name), false)")
        let value: T
        do {
            value = try await body()
        } catch {
            try? await reset(connection)
            throw error
        }
        try await reset(connection)
        return value
    }

    /// True when the owner role owns the history table and the session user is a member of it
    /// (a superuser always is).
    static func applies(on connection: PGConnection) async throws -> Bool {
        let rows = try await connection.query(
            """
            SELECT EXISTS (
                SELECT FROM pg_catalog.pg_class c JOIN pg_catalog.pg_roles r ON r.oid = c.relowner
                 WHERE c.oid = to_regclass(\(MigrationHistory.tableName)) AND r.rolname = \(name)
                   AND pg_has_role(session_user, r.oid, 'MEMBER')) AS applies
            """)
        return try rows.first?.decode(Bool.self, "applies") == true
    }

    private static func reset(_ connection: PGConnection) async throws {
        _ = try await connection.simpleQuery(unsafeSQL: "RESET ROLE")
    }
}
