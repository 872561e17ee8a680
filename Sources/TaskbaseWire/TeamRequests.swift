/// The body of `POST /v1/teams`: the new team's `key` (2-10 letters and digits) and `name`.
public struct CreateTeamRequest: Codable, Hashable, Sendable {
    /// `CORE`; uppercased.
    public var key: String
    /// The display name.
    public var name: String

    /// A request for team `key` named `name`.
    public init(key: String, name: String) {
        self.key = key
        self.name = name
    }
}

/// The body of `PATCH /v1/teams/{team}`: the team's new `name`.
public struct RenameTeamRequest: Codable, Hashable, Sendable {
    /// The new display name.
    public var name: String

    /// A rename to `name`.
    public init(name: String) {
        self.name = name
    }
}

/// The body of `PUT /v1/teams/{team}/members/{user}`: the member's `role`.
public struct MemberRoleRequest: Codable, Hashable, Sendable {
    /// `viewer`, `member`, `admin` or `owner`.
    public var role: String

    /// A request granting `role`.
    public init(role: String) {
        self.role = role
    }
}
