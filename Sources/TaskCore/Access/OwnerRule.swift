/// A team always keeps an owner. Stores judge it with the owner count after a membership
/// change, inside the same transaction, so two owners stepping down at once cannot both succeed.
public enum OwnerRule {
    /// Refuses, as a validation error on `role`, a change that leaves `team` with no owner.
    public static func verify(ownersAfterChange: Int, team: TeamKey) throws {
        guard ownersAfterChange > 0 else {
            throw TaskError.validation(field: "role", reason: "team \(team) must keep at least one owner")
        }
    }
}
