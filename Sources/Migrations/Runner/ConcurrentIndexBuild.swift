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

    /// The build in `file`'s up section, when it is a no-transaction `CREATE INDEX CONCURRENTLY`
    /// that names its index.
    init?(_ file: MigrationFile) {
        guard !file.runsInTransaction, file.up.count == 1,
            let target = StatementShape(file.up[0].codeTokens).concurrentIndexTarget()
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
}
