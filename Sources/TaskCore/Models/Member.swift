/// A user together with their role in one team, as membership listings show it.
public struct Member: Hashable, Sendable {
    /// The member.
    public var user: User
    /// Their role in the team.
    public var role: Role

    /// Pairs a user with their role.
    public init(user: User, role: Role) {
        self.user = user
        self.role = role
    }
}
