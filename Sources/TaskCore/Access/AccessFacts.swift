/// What a store found out about an actor in a team, for `AccessRequirement.verify` to judge.
/// A store gathers these in the same query as the work where it can.
public struct AccessFacts: Sendable, Hashable {
    /// The acting user, nil when no user matches the reference.
    public var actor: User?
    /// The actor's role in the team; nil for outsiders and for teams that do not exist.
    public var role: Role?

    /// Records what the store found.
    public init(actor: User?, role: Role?) {
        self.actor = actor
        self.role = role
    }
}
