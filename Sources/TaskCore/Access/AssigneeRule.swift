/// The rule for assignees, judged from facts a store gathered: the user exists, is enabled
/// and is a member of the team (any role).
public enum AssigneeRule {
    /// The assignee's id, or a validation error on `assignee` saying what is wrong.
    public static func verify(_ ref: UserRef, user: User?, role: Role?, team: TeamKey) throws -> UserID {
        guard let user else { throw TaskError.validation(field: "assignee", reason: "no \(ref) exists") }
        guard !user.isDisabled else {
            throw TaskError.validation(field: "assignee", reason: "\(user.email.isEmpty ? ref.description : user.email) is disabled")
        }
        guard role != nil else {
            throw TaskError.validation(field: "assignee", reason: "\(user.email) is not a member of team \(team)")
        }
        return user.id
    }
}
