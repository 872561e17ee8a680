/// Which users an acting user may look up: what the service needs, and no more. Both stores
/// judge by it (Postgres in the `users` policy of migration 0009).
public enum UserVisibility {
    /// Whether `actor` sees `target`: themself, anyone sharing a team with them, and anyone
    /// at all for enabled operators and for admins or owners of some team (they add members
    /// by email). `sharesATeam` and `managesATeam` are facts the store gathered; a nil actor
    /// is the database's administrator, who sees everyone.
    public static func sees(_ target: User, actor: User?, isAdministrator: Bool, sharesATeam: Bool, managesATeam: Bool) -> Bool {
        if isAdministrator { return true }
        guard let actor, !actor.isDisabled || actor.id == target.id else { return false }
        return actor.id == target.id || sharesATeam || managesATeam || actor.isOperator
    }
}
