/// Which users an acting user may look up: what the service needs, and no more. Both stores
/// judge by it (Postgres in the `users` policy of migrations 0009 and 0025, and in
/// `taskbase_user_by_email`).
public enum UserVisibility {
    /// Whether `actor` sees `target`: themself, anyone sharing a team with them, and anyone at
    /// all for enabled operators; and, looking up whom to add (`toAdd`, by the exact email they
    /// know), anyone for admins or owners of some team. An id never names to an admin someone
    /// outside their teams, and nobody but an operator lists users, so owning a team (anyone
    /// may make one) reveals no one's address. `sharesATeam` and `managesATeam` are facts the
    /// store gathered; a nil actor is the database's administrator, who sees everyone.
    public static func sees(
        _ target: User, actor: User?, isAdministrator: Bool, sharesATeam: Bool, managesATeam: Bool, toAdd: Bool
    ) -> Bool {
        if isAdministrator { return true }
        guard let actor, !actor.isDisabled || actor.id == target.id else { return false }
        return actor.id == target.id || sharesATeam || actor.isOperator || (managesATeam && toAdd)
    }

    /// What an admin or owner learns of `target`, whom they see only to add them (`toAdd`): what
    /// a member's record shows, never whether they are an operator (Postgres: migration 0039).
    public static func foundToAdd(_ target: User) -> User {
        var found = target
        found.isOperator = false
        return found
    }
}
