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

/// The user as a member document and a removal document both write them, in the document's own
/// object: `user_id`, `email`, `display_name`, `disabled`, `created_at` (the user's, so a client
/// rebuilds the user exactly). One type, so a field added to a member is in both.
public struct MemberUserFields: Codable, Hashable, Sendable {
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

    enum CodingKeys: String, CodingKey {
        case userID = "user_id", email, displayName = "display_name", disabled, createdAt = "created_at"
    }

    /// The fields of `user`.
    public init(_ user: User) {
        userID = user.id.rawValue
        email = user.email
        displayName = user.displayName
        disabled = user.isDisabled
        createdAt = user.createdAt
    }

    /// The user these fields describe.
    public var user: User {
        User(id: UserID(userID), email: email, displayName: displayName, isDisabled: disabled, createdAt: createdAt)
    }
}

/// A document holding a user's `MemberUserFields`, whose fields read as its own (`document.email`).
@dynamicMemberLookup
public protocol MemberUserDocument {
    /// The user's fields.
    var user: MemberUserFields { get set }
}

extension MemberUserDocument {
    /// One of the user's fields.
    public subscript<Value>(dynamicMember field: WritableKeyPath<MemberUserFields, Value>) -> Value {
        get { user[keyPath: field] }
        set { user[keyPath: field] = newValue }
    }
}

/// A member in JSON: the user's fields (`MemberUserFields`) and `role`.
public struct MemberDocument: Codable, Hashable, Sendable, MemberUserDocument {
    /// The user's fields, read as the document's own (`document.email`).
    public var user: MemberUserFields
    /// The role in the team.
    public var role: String

    enum CodingKeys: String, CodingKey {
        case role
    }

    /// The document of `member`.
    public init(_ member: Member) {
        user = MemberUserFields(member.user)
        role = member.role.rawValue
    }

    /// Reads the user's fields and the role from one object.
    public init(from decoder: any Decoder) throws {
        user = try MemberUserFields(from: decoder)
        role = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .role)
    }

    /// Writes the user's fields and the role into one object.
    public func encode(to encoder: any Encoder) throws {
        try user.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(role, forKey: .role)
    }

    /// The member this document describes.
    public func member() throws -> Member {
        Member(user: user.user, role: try Role(parsing: role))
    }
}

/// A removal in JSON: `team` (its key), the removed user's fields as a member document writes
/// them (`MemberUserFields`), and `unassigned_tasks`, how many of their tasks in the team the
/// removal unassigned.
public struct MemberRemovalDocument: Codable, Hashable, Sendable, MemberUserDocument {
    /// The team's key.
    public var team: String
    /// The user's fields, read as the document's own (`document.email`).
    public var user: MemberUserFields
    /// How many of their tasks in the team were unassigned.
    public var unassignedTasks: Int

    enum CodingKeys: String, CodingKey {
        case team, unassignedTasks = "unassigned_tasks"
    }

    /// The document of `removal`.
    public init(_ removal: MemberRemoval) {
        team = removal.team.rawValue
        user = MemberUserFields(removal.user)
        unassignedTasks = removal.unassignedTasks
    }

    /// Reads the team, the user's fields and the count from one object.
    public init(from decoder: any Decoder) throws {
        user = try MemberUserFields(from: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        team = try container.decode(String.self, forKey: .team)
        unassignedTasks = try container.decode(Int.self, forKey: .unassignedTasks)
    }

    /// Writes the team, the user's fields and the count into one object.
    public func encode(to encoder: any Encoder) throws {
        try user.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(team, forKey: .team)
        try container.encode(unassignedTasks, forKey: .unassignedTasks)
    }

    /// The removal this document describes.
    public func removal() throws -> MemberRemoval {
        MemberRemoval(team: try TeamKey(team, field: "team"), user: user.user, unassignedTasks: unassignedTasks)
    }
}
