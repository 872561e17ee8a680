import Foundation
import PGStore

/// The `schema_migrations` table: which migrations a database has applied, with what bytes,
/// when, how fast, by whom and with which tool version.
struct MigrationHistory: Sendable {
    /// The table's name.
    static let tableName = "schema_migrations"

    /// Creates the table when it does not exist. Run while holding the migration lock, so two
    /// runners never race to create it.
    func create(on connection: PGConnection) async throws {
        guard try await !exists(on: connection) else { return }
        _ = try await connection.simpleQuery(
            unsafeSQL: """
                CREATE TABLE \(Self.tableName) (
                    version bigint PRIMARY KEY CHECK (version > 0),
                    name text NOT NULL,
                    checksum text NOT NULL CHECK (checksum ~ '^[0-9a-f]{64}$'),
                    applied_at timestamptz NOT NULL DEFAULT clock_timestamp(),
                    execution_ms bigint NOT NULL CHECK (execution_ms >= 0),
                    applied_by text NOT NULL,
                    tool_version text NOT NULL,
                    baseline boolean NOT NULL DEFAULT false
                );
                COMMENT ON TABLE \(Self.tableName) IS 'Applied migrations, kept by taskmigrate; checksum is the SHA-256 of the file bytes';
                """)
    }

    /// Every applied migration, ascending; empty when the table does not exist yet.
    func read(on connection: PGConnection) async throws -> [AppliedMigration] {
        guard try await exists(on: connection) else { return [] }
        let rows = try await connection.query(
            PGQuery(
                unsafeSQL: """
                    SELECT version, name, checksum, applied_at, execution_ms, applied_by, tool_version, baseline
                      FROM \(Self.tableName) ORDER BY version
                    """))
        return try rows.map { row in
            AppliedMigration(
                version: try row.decode(Int64.self, "version"),
                name: try row.decode(String.self, "name"),
                checksum: try row.decode(String.self, "checksum"),
                appliedAt: try row.decode(Date.self, "applied_at"),
                executionMilliseconds: try row.decode(Int64.self, "execution_ms"),
                appliedBy: try row.decode(String.self, "applied_by"),
                toolVersion: try row.decode(String.self, "tool_version"),
                isBaseline: try row.decode(Bool.self, "baseline"))
        }
    }

    private func exists(on connection: PGConnection) async throws -> Bool {
        let rows = try await connection.query("SELECT to_regclass(\(Self.tableName)) IS NOT NULL AS present")
        return try rows.first?.decode(Bool.self, "present") == true
    }

    /// Records `file` as applied, in the caller's transaction when there is one, naming the
    /// login role (a migration may run as the owner role).
    func insert(_ file: MigrationFile, milliseconds: Int64, operatorName: String, baseline: Bool = false, on connection: PGConnection) async throws {
        try await connection.execute(
            """
            INSERT INTO \(unsafeSQL: Self.tableName) (version, name, checksum, execution_ms, applied_by, tool_version, baseline)
            VALUES (\(file.version), \(file.name), \(file.checksum), \(milliseconds),
                    session_user || ' (' || \(operatorName) || ')', \(MigrationTool.version), \(baseline))
            """)
    }

    /// Records `file`'s checksum now in place of `previous`, one a reviewed comment-only edit
    /// superseded; a row that no longer holds `previous` is left alone.
    func recordChecksum(of file: MigrationFile, replacing previous: String, on connection: PGConnection) async throws {
        try await connection.execute(
            "UPDATE \(unsafeSQL: Self.tableName) SET checksum = \(file.checksum) WHERE version = \(file.version) AND checksum = \(previous)")
    }

    /// Forgets `file` (after its down section ran), in the caller's transaction when there is one.
    func delete(_ file: MigrationFile, on connection: PGConnection) async throws {
        try await connection.execute("DELETE FROM \(unsafeSQL: Self.tableName) WHERE version = \(file.version)")
    }
}
