/// A team at a glance: how many tasks in each status and category, how many overdue, and
/// how many open tasks each person carries.
public struct TeamSummary: Hashable, Sendable {
    /// The team.
    public var team: Team
    /// All tasks.
    public var total: Int
    /// Tasks per status, every status present (zero when none).
    public var byStatus: [TaskStatus: Int]
    /// Tasks per category ("Uncategorized" for none), largest first.
    public var byCategory: [NamedCount]
    /// Tasks past due and not done.
    public var overdue: Int
    /// Tasks not done per assignee email ("Unassigned" for none), largest first.
    public var openByAssignee: [NamedCount]

    /// Displays the store's `counts` of `team`, naming assignees from `members` (an assignee
    /// no longer among them reads `#id`, as in `TaskRow`).
    public init(team: Team, counts: TaskCounts, members: [Member]) {
        let users = TaskRow.users(members)
        self.team = team
        total = counts.total
        byStatus = Dictionary(uniqueKeysWithValues: TaskStatus.allCases.map { ($0, counts.byStatus[$0] ?? 0) })
        byCategory = NamedCount.tally(counts.byCategory.map { (TaskRow.categoryLabel($0.key), $0.value) })
        overdue = counts.overdue
        openByAssignee = NamedCount.tally(counts.openByAssignee.map { (TaskRow.assigneeLabel($0.key, users: users), $0.value) })
    }
}
