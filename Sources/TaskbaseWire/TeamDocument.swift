import Foundation
import TaskCore

/// A team in JSON: `id`, `key`, `name`, `created_at`, and `role`, the acting user's role in it.
public struct TeamDocument: Codable, Hashable, Sendable {
    /// Store identity.
    public var id: Int64
    /// `CORE`.
    public var key: String
    /// The display name.
    public var name: String
    /// When it was created.
    public var createdAt: Date
    /// The acting user's role: `viewer`, `member`, `admin` or `owner`.
    public var role: String

    enum CodingKeys: String, CodingKey {
        case id, key, name, createdAt = "created_at", role
    }

    /// The document of a team seen by a member with `role`.
    public init(_ team: Team, role: Role) {
        id = team.id.rawValue
        key = team.key.rawValue
        name = team.name
        createdAt = team.createdAt
        self.role = role.rawValue
    }

    /// The membership this document describes.
    public func membership() throws -> TeamMembership {
        TeamMembership(
            team: Team(id: TeamID(id), key: try TeamKey(key, field: "key"), name: name, createdAt: createdAt),
            role: try Role(parsing: role))
    }
}

/// A member in JSON: `user_id`, `email`, `display_name`, `role`, `disabled`, `created_at` (the
/// user's, so a client rebuilds the member exactly).
public struct MemberDocument: Codable, Hashable, Sendable {
    /// The user's id.
    public var userID: Int64
    /// The user's email.
    public var email: String
    /// The user's name.
    public var displayName: String
    /// The role in the team.
    public var role: String
    /// Whether the account is disabled.
    public var disabled: Bool
    /// When the user was created.
    public var createdAt: Date

    enum CodingKeys: String, CodingKey {
        case userID = "user_id", email, displayName = "display_name", role, disabled, createdAt = "created_at"
    }

    /// The document of `member`.
    public init(_ member: Member) {
        userID = member.user.id.rawValue
        email = member.user.email
        displayName = member.user.displayName
        role = member.role.rawValue
        disabled = member.user.isDisabled
        createdAt = member.user.createdAt
    }

    /// The member this document describes.
    public func member() throws -> Member {
        Member(
            user: User(id: UserID(userID), email: email, displayName: displayName, isDisabled: disabled, createdAt: createdAt),
            role: try Role(parsing: role))
    }
}

/// A removal in JSON: `team` (its key), the removed user as a member document has them
/// (`user_id`, `email`, `display_name`, `disabled`, `created_at`), and `unassigned_tasks`, how
/// many of their tasks in the team the removal unassigned.
public struct MemberRemovalDocument: Codable, Hashable, Sendable {
    /// The team's key.
    public var team: String
    /// The user's id.
    public var userID: Int64
    /// The user's email.
    public var email: String
    /// The user's name.
    public var displayName: String
    /// Whether the account is disabled.
    public var disabled: Bool
    /// When the user was created.
    public var createdAt: Date
    /// How many of their tasks in the team were unassigned.
    public var unassignedTasks: Int

    enum CodingKeys: String, CodingKey {
        case team, userID = "user_id", email, displayName = "display_name", disabled, createdAt = "created_at"
        case unassignedTasks = "unassigned_tasks"
    }

    /// The document of `removal`.
    public init(_ removal: MemberRemoval) {
        team = removal.team.rawValue
        userID = removal.user.id.rawValue
        email = removal.user.email
        displayName = removal.user.displayName
        disabled = removal.user.isDisabled
        createdAt = removal.user.createdAt
        unassignedTasks = removal.unassignedTasks
    }

    /// The removal this document describes.
    public func removal() throws -> MemberRemoval {
        MemberRemoval(
            team: try TeamKey(team, field: "team"),
            user: User(id: UserID(userID), email: email, displayName: displayName, isDisabled: disabled, createdAt: createdAt),
            unassignedTasks: unassignedTasks)
    }
}
