/// A database identity for one kind of entity; the phantom `Entity` keeps a user id from
/// ever being passed where a team or task id is expected.
public struct EntityID<Entity>: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The number the store assigned (a `bigint` in Postgres).
    public let rawValue: Int64

    /// Wraps a store-assigned number.
    public init(_ rawValue: Int64) { self.rawValue = rawValue }

    /// Order of assignment.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The bare number.
    public var description: String { String(rawValue) }
}

/// Identifies a user.
public typealias UserID = EntityID<User>
/// Identifies a team.
public typealias TeamID = EntityID<Team>
/// Identifies a task independently of its human key.
public typealias TaskID = EntityID<TaskItem>
