/// What removing a member did: who left which team, and how many of their tasks in that team the
/// removal unassigned (in the same transaction; tasks in other teams are untouched).
public struct MemberRemoval: Hashable, Sendable {
    /// The team they left.
    public var team: TeamKey
    /// The removed member.
    public var user: User
    /// How many of their tasks in the team were unassigned, each as an edit by the remover.
    public var unassignedTasks: Int

    /// A removal of `user` from `team` that unassigned `unassignedTasks` tasks.
    public init(team: TeamKey, user: User, unassignedTasks: Int) {
        self.team = team
        self.user = user
        self.unassignedTasks = unassignedTasks
    }
}
