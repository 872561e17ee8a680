/// A team as one of its members sees it: the team and the member's own role.
public struct TeamMembership: Hashable, Sendable {
    /// The team.
    public var team: Team
    /// The viewing user's role in it.
    public var role: Role

    /// Pairs a team with the viewer's role.
    public init(team: Team, role: Role) {
        self.team = team
        self.role = role
    }
}
