/// Which tasks to list by assignee.
public enum AssigneeFilter: Hashable, Sendable {
    /// Tasks without an assignee.
    case unassigned
    /// Tasks of one user; the service resolves an email to an id before stores see it.
    case user(UserRef)
}
