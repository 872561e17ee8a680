/// The rule for assignees, judged from facts a store gathered: the user exists (as far as the
/// actor may see: `UserVisibility`), is enabled and is a member of the team (any role).
public enum AssigneeRule {
    /// The assignee's id, or a validation error on `assignee` saying what is wrong. The reason
    /// names the assignee as the caller wrote them (`ref.written`), never an email the store
    /// found: an id names nobody's address, in either store.
    public static func verify(_ ref: UserRef, user: User?, role: Role?, team: TeamKey) throws -> UserID {
        guard let user else { throw TaskError.validation(field: "assignee", reason: "no \(ref) exists") }
        guard !user.isDisabled else {
            throw TaskError.validation(field: "assignee", reason: "\(ref.written) is disabled")
        }
        guard role != nil else {
            throw TaskError.validation(field: "assignee", reason: "\(ref.written) is not a member of team \(team)")
        }
        return user.id
    }
}
