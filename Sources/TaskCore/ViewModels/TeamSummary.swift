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

    /// Summarises `tasks` of `team` as of `today`, naming assignees from `members`.
    public init(team: Team, tasks: [TaskItem], members: [Member], today: CalendarDate) {
        let rows = TaskRow.rows(tasks, members: members, today: today)
        self.team = team
        total = tasks.count
        byStatus = Dictionary(uniqueKeysWithValues: TaskStatus.allCases.map { status in
            (status, tasks.count { $0.status == status })
        })
        byCategory = NamedCount.tally(rows.map(\.category))
        overdue = rows.count(where: \.isOverdue)
        openByAssignee = NamedCount.tally(rows.filter { $0.status != TaskStatus.done.rawValue }.map(\.assignee))
    }
}
