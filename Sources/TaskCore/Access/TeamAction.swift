/// What an actor wants to do in a team; the permission model maps each to the least role allowed.
public enum TeamAction: String, CaseIterable, Sendable {
    /// See tasks, history, members, summary and the change feed.
    case readTasks = "read tasks"
    /// Create, edit, complete, reopen, assign, delete and import tasks.
    case writeTasks = "change tasks"
    /// Add members, change their roles, remove them (owners excepted).
    case manageMembers = "manage members"
    /// Rename or delete the team, and grant, change or remove the owner role.
    case manageTeam = "manage the team"

    /// The permission model, in one place: viewers read, members write, admins manage
    /// members, owners manage the team.
    public var minimumRole: Role {
        switch self {
        case .readTasks: .viewer
        case .writeTasks: .member
        case .manageMembers: .admin
        case .manageTeam: .owner
        }
    }

    /// What was refused, for `subject` ("task CORE-1", "team CORE"): "change task CORE-1",
    /// "change tasks in team CORE", "manage members in team CORE".
    public func phrase(for subject: String) -> String {
        guard subject.hasPrefix("task "), self == .readTasks || self == .writeTasks else { return "\(rawValue) in \(subject)" }
        return "\(rawValue.prefix { $0 != " " }) \(subject)"
    }
}
