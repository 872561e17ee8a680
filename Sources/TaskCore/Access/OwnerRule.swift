/// A team always keeps an enabled owner. Stores judge it with the count of enabled owners
/// after a membership change or a user's disabling, inside the same transaction, so two
/// owners stepping down at once cannot both succeed.
public enum OwnerRule {
    /// What to do instead, added to every refusal (also the database trigger's, by the Postgres store).
    public static let nextStep = "make another member an owner first"

    /// Refuses, as a validation error on `field`, a change that leaves `team` with no enabled owner.
    public static func verify(enabledOwnersAfterChange: Int, team: TeamKey, field: String = "role") throws {
        guard enabledOwnersAfterChange > 0 else {
            throw TaskError.validation(field: field, reason: "team \(team) must keep at least one enabled owner; \(nextStep)")
        }
    }
}
