/// The rule for assignees, judged from facts a store gathered: the user exists (as far as the
/// actor may see: `UserVisibility`), is enabled and is a member of the team (any role).
public enum AssigneeRule {
    /// The assignee's id, or a validation error on `assignee` saying what is wrong. The reason
    /// names the assignee as the caller wrote them (`ref.written`), never an email the store
    /// found: an id names nobody's address, in either store. One the actor does not see, or
    /// who has no account, is "not a member" like anyone else outside the team: true of each,
    /// and it tells nobody whether an address has an account (a member who left is the same).
    public static func verify(_ ref: UserRef, user: User?, role: Role?, team: TeamKey) throws -> UserID {
        guard let user else { throw notAMember(ref, of: team) }
        guard !user.isDisabled else {
            throw TaskError.validation(field: "assignee", reason: "\(ref.written) is disabled")
        }
        guard role != nil else { throw notAMember(ref, of: team) }
        return user.id
    }

    /// The refusal of an assignee who is no member of `team` (or no longer: removed while the
    /// change was made).
    public static func notAMember(_ ref: UserRef, of team: TeamKey) -> TaskError {
        TaskError.validation(field: "assignee", reason: "\(ref.written) is not a member of team \(team)")
    }
}
