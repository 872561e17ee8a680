import PGStore

/// The index a no-transaction `CREATE INDEX CONCURRENTLY` migration builds.
///
/// When such a build fails part way — typically a lock timeout while it waits for older
/// transactions on the table — PostgreSQL keeps the index, marked INVALID, and running the
/// statement again fails with "already exists". Before each try (and after the last one) the
/// runner drops such a leftover — from this run or an earlier, killed one. An INVALID index
/// serves no query, so dropping it loses nothing; a valid index of that name is never touched.
struct ConcurrentIndexBuild {
    /// The index's name, folded.
    let index: String
    /// The table as a quoted, possibly schema-qualified name.
    let table: String

    /// The build in `file`'s section for `direction`, when it is a no-transaction `CREATE INDEX
    /// CONCURRENTLY` that names its index: the up of an index migration, or the down of one
    /// that drops an index (a failed rebuild leaves an INVALID index there too, which `IF NOT
    /// EXISTS` would then take for the index and skip).
    init?(_ file: MigrationFile, _ direction: MigrationDirection) {
        let statements = direction == .up ? file.up : file.down ?? []
        guard !file.runsInTransaction, statements.count == 1,
            let target = StatementShape(statements[0].codeTokens).concurrentIndexTarget()
        else { return nil }
        index = target.index
        table = target.table.map(PGQuery.quoteIdentifier).joined(separator: ".")
    }

    /// Drops the index if it exists and is INVALID. A drop that times out on its own locks
    /// throws, like any lock timeout.
    func dropLeftover(on connection: PGConnection) async throws {
        guard let name = try await leftover(on: connection) else { return }
        _ = try await connection.simpleQuery(unsafeSQL: "DROP INDEX CONCURRENTLY IF EXISTS \(name)")
    }

    /// The INVALID index's regclass text (quoted and qualified as needed), if there is one.
    func leftover(on connection: PGConnection) async throws -> String? {
        let rows = try await connection.query(
            """
            SELECT c.oid::regclass::text AS name
              FROM pg_catalog.pg_index i JOIN pg_catalog.pg_class c ON c.oid = i.indexrelid
             WHERE i.indrelid = to_regclass(\(table)) AND c.relname = \(index) AND NOT i.indisvalid
            """)
        return try rows.first?.decode(String.self, "name")
    }

    /// The backend still building this index, if any: after a killed `taskmigrate up` the
    /// server goes on with the build although the runner (and its lock) are gone.
    func runningBuild(on connection: PGConnection) async throws -> Int32? {
        let rows = try await connection.query(
            """
            SELECT p.pid
              FROM pg_catalog.pg_stat_progress_create_index p
              LEFT JOIN pg_catalog.pg_class c ON c.oid = p.index_relid
             WHERE p.relid = to_regclass(\(table)) AND p.pid <> pg_backend_pid()
               AND (c.relname = \(index) OR p.index_relid = 0)
             LIMIT 1
            """)
        return try rows.first?.decode(Int32.self, "pid")
    }

    /// The VALID index's regclass text, if the index exists and is usable: built by an earlier
    /// run that was killed before it could record the migration.
    func built(on connection: PGConnection) async throws -> String? {
        let rows = try await connection.query(
            """
            SELECT c.oid::regclass::text AS name
              FROM pg_catalog.pg_index i JOIN pg_catalog.pg_class c ON c.oid = i.indexrelid
             WHERE i.indrelid = to_regclass(\(table)) AND c.relname = \(index) AND i.indisvalid
            """)
        return try rows.first?.decode(String.self, "name")
    }

    /// Every INVALID index of the database's own schemas: what failed or killed concurrent
    /// builds leave behind, for `status` and `verify`.
    static func invalidIndexes(on connection: PGConnection) async throws -> [InvalidIndex] {
        let rows = try await connection.query(
            """
            SELECT c.oid::regclass::text AS index, i.indrelid::regclass::text AS table
              FROM pg_catalog.pg_index i JOIN pg_catalog.pg_class c ON c.oid = i.indexrelid
              JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
             WHERE NOT i.indisvalid AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%'
             ORDER BY 1
            """)
        return try rows.map { InvalidIndex(index: try $0.decode(String.self, "index"), table: try $0.decode(String.self, "table")) }
    }
}

/// An index PostgreSQL marks INVALID (a failed or killed `CREATE INDEX CONCURRENTLY`): it
/// serves no query and blocks a rerun of its migration until dropped or rebuilt.
public struct InvalidIndex: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The index, as `regclass` text (qualified when not on the search path).
    public var index: String
    /// Its table, likewise.
    public var table: String

    /// `index on table`.
    public var description: String { "\(index) on \(table)" }
}
