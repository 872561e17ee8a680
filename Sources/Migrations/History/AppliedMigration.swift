import Foundation

/// One row of `schema_migrations`: a migration the database has applied.
public struct AppliedMigration: Sendable, Equatable, Codable {
    /// The migration's version.
    public var version: Int64
    /// Its name when it was applied.
    public var name: String
    /// SHA-256 of the file's bytes when it was applied.
    public var checksum: String
    /// When its transaction committed (for a no-transaction file, when it finished).
    public var appliedAt: Date
    /// How long it ran.
    public var executionMilliseconds: Int64
    /// The database role and the operating-system user that applied it.
    public var appliedBy: String
    /// The taskmigrate version that applied it.
    public var toolVersion: String
    /// True when `baseline` recorded it without running it.
    public var isBaseline: Bool

    /// A history row.
    public init(
        version: Int64, name: String, checksum: String, appliedAt: Date, executionMilliseconds: Int64, appliedBy: String, toolVersion: String,
        isBaseline: Bool
    ) {
        self.version = version
        self.name = name
        self.checksum = checksum
        self.appliedAt = appliedAt
        self.executionMilliseconds = executionMilliseconds
        self.appliedBy = appliedBy
        self.toolVersion = toolVersion
        self.isBaseline = isBaseline
    }

    /// The file name this row stands for.
    public var fileName: String { MigrationFileName.fileName(version: version, name: name) }
}
