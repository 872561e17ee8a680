import Foundation

/// A group of people sharing one task list; its key prefixes every task key.
public struct Team: Hashable, Sendable {
    /// Store identity.
    public var id: TeamID
    /// The short uppercase key, unique and never changed after creation.
    public var key: TeamKey
    /// The human name.
    public var name: String
    /// When the team was created.
    public var createdAt: Date

    /// Builds a team as a store read it.
    public init(id: TeamID, key: TeamKey, name: String, createdAt: Date) {
        self.id = id
        self.key = key
        self.name = name
        self.createdAt = createdAt
    }
}
