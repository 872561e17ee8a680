/// The outcome of a passed access check: the team, the acting user and their role.
public struct TeamAccess: Hashable, Sendable {
    /// The team acted on.
    public var team: Team
    /// The verified, enabled actor.
    public var actor: User
    /// The actor's role in the team.
    public var role: Role

    /// Records a passed check.
    public init(team: Team, actor: User, role: Role) {
        self.team = team
        self.actor = actor
        self.role = role
    }
}
