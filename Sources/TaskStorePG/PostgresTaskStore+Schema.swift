import PGStore
import TaskCore

extension PostgresTaskStore: SchemaStatusReporting {
    /// The newest migration this build needs: the newest file in `migrations/` (a test holds
    /// the two equal, so a new migration raises it).
    public static let neededSchemaVersion: Int64 = 39

    /// Read with the runtime role's rights, which include `schema_migrations.version` from
    /// migration 0018 on: a schema without that grant is older than 0018. The first look is
    /// at the catalog only, with the login's own rights, since a database never migrated may
    /// not even know the runtime role.
    public func schemaStatus() async throws -> SchemaStatus {
        let table: PGQuery = "to_regclass('public.schema_migrations')"
        let found = try await source.withConnection { connection in
            try await connection.query(
                """
                SELECT \(table) IS NOT NULL AS present,
                       coalesce(has_column_privilege(
                           (SELECT oid FROM pg_roles WHERE rolname = coalesce(\(runtimeRole), current_user)), \(table), 'version', 'SELECT'),
                           false) AS readable,
                       coalesce(has_column_privilege(\(table), 'version', 'SELECT'), false) AS login_reads
                """)[0]
        }
        guard try found.decode(Bool.self, "present") else { return .neverMigrated }
        guard try found.decode(Bool.self, "readable") else {
            // Before 0018 the runtime role may not read the history, but a login that may (the
            // owner's, a superuser's) tells an empty one, left by a first `up` that failed,
            // from one that is merely older: that database was never migrated.
            if try found.decode(Bool.self, "login_reads") {
                let newest = try await source.withConnection { try await $0.query("SELECT max(version) AS version FROM schema_migrations")[0] }
                if try newest.decode(Int64?.self, "version") == nil { return .neverMigrated }
            }
            return .behind(applied: nil, needed: Self.neededSchemaVersion)
        }
        let newest = try await statement(as: nil, "SELECT max(version) AS version FROM schema_migrations")[0]
        guard let applied = try newest.decode(Int64?.self, "version") else { return .neverMigrated }
        return applied >= Self.neededSchemaVersion ? .current : .behind(applied: applied, needed: Self.neededSchemaVersion)
    }
}
