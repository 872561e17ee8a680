/// How a store's schema stands against what this build needs: a program refuses to start on a
/// database never migrated, and a server is not ready while the schema is older.
public enum SchemaStatus: Sendable, Hashable, CustomStringConvertible {
    /// Every migration this build needs is applied (newer ones may be too).
    case current
    /// No migration was ever applied.
    case neverMigrated
    /// Older than this build needs: at version `applied` (nil when too old to say), needing `needed`.
    case behind(applied: Int64?, needed: Int64)

    /// What to do about a schema that is not current, worded once for every program.
    public static let migrationAdvice = "check with taskmigrate status, and apply what is pending with taskmigrate up"

    /// One clause for people: "the database was never migrated".
    public var description: String {
        switch self {
        case .current: "the database schema is current"
        case .neverMigrated: "the database was never migrated"
        case .behind(let applied?, let needed): "the database schema is at version \(applied), older than the version \(needed) this program needs"
        case .behind(nil, let needed): "the database schema is older than the version \(needed) this program needs"
        }
    }
}

/// A store's report of its schema; the memory store's is always current.
public protocol SchemaStatusReporting: Sendable {
    /// How the schema stands; throws when the store cannot be reached.
    func schemaStatus() async throws -> SchemaStatus
}
