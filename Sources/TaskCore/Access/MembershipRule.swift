/// Who may change a membership: the owner role is an owner's to grant or take away, the rest an
/// admin's; anyone may take themself out (the owner rule aside). The service judges it before
/// a change; each store judges it again under the team's lock, since the actor may have been
/// demoted in between (two owners demoting each other at once).
public enum MembershipRule {
    /// The refusal of a change of the owner role by `actor`, who is `role` in `team`.
    public static func ownersOnly(team: String, actor email: String, role: Role) -> TaskError {
        .permissionDenied(
            what: "change the owners of team \(team)", why: "\(email) is \(role.withArticle); only an owner can grant or take away the owner role")
    }

    /// Refuses the change of a member who is `current` (nil: not yet one) to `new` (nil:
    /// removed) by an actor who is `actorRole` in `team`, unless it is the actor leaving.
    public static func verify(
        changing current: Role?, to new: Role?, leaving: Bool, actor email: String, actorRole: Role, team: String
    ) throws {
        if leaving && new == nil { return }
        if new == .owner || current == .owner, actorRole < TeamAction.manageTeam.minimumRole {
            throw ownersOnly(team: team, actor: email, role: actorRole)
        }
        let needed = TeamAction.manageMembers.minimumRole
        guard actorRole >= needed else {
            throw TaskError.permissionDenied(
                what: TeamAction.manageMembers.phrase(for: "team \(team)"),
                why: "\(email) is \(actorRole.withArticle); it takes \(needed.withArticle) or above")
        }
    }
}
