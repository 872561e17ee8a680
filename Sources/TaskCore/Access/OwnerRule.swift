/// A team always keeps an enabled owner. Stores judge it with the count of enabled owners
/// after a membership change or a user's disabling, inside the same transaction, so two
/// owners stepping down at once cannot both succeed.
public enum OwnerRule {
    /// What to do instead, added to every refusal (also the database trigger's, by the Postgres store).
    public static let nextStep = "make another member an owner first"

    /// The field a refusal names, as the caller sent it: the new `role` of a membership (or of
    /// one whose disabling is refused, for the role they hold); a removal's names the `user`
    /// taken out (the route's and the command's `user`), as its caller sent no role.
    public static func field(removing: Bool) -> String { removing ? "user" : "role" }

    /// Refuses, as a validation error on `field`, a change that leaves `team` with no enabled owner.
    public static func verify(enabledOwnersAfterChange: Int, team: TeamKey, field: String = OwnerRule.field(removing: false)) throws {
        guard enabledOwnersAfterChange > 0 else {
            throw TaskError.validation(field: field, reason: "team \(team) must keep at least one enabled owner; \(nextStep)")
        }
    }
}
