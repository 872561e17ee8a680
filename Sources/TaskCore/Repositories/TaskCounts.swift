/// How a team's tasks divide up, as of one day: the counts `TeamSummary` shows, gathered by
/// the store in one read instead of fetching every task. A group with no task is absent.
public struct TaskCounts: Hashable, Sendable {
    /// All tasks.
    public var total: Int
    /// Tasks per status.
    public var byStatus: [TaskStatus: Int]
    /// Tasks per category exactly as stored (nil: none).
    public var byCategory: [String?: Int]
    /// Tasks due before the day and not done.
    public var overdue: Int
    /// Tasks not done per assignee (nil: unassigned).
    public var openByAssignee: [UserID?: Int]

    /// The given counts; leave out the groups with no task.
    public init(
        total: Int = 0, byStatus: [TaskStatus: Int] = [:], byCategory: [String?: Int] = [:], overdue: Int = 0,
        openByAssignee: [UserID?: Int] = [:]
    ) {
        self.total = total
        self.byStatus = byStatus
        self.byCategory = byCategory
        self.overdue = overdue
        self.openByAssignee = openByAssignee
    }

    /// Counts `tasks` as of `today`: the reference semantics a store's aggregate must match.
    public init(tallying tasks: some Sequence<TaskItem>, today: CalendarDate) {
        self.init()
        for task in tasks {
            total += 1
            byStatus[task.status, default: 0] += 1
            byCategory[task.category, default: 0] += 1
            if task.isOverdue(today: today) { overdue += 1 }
            if task.status != .done { openByAssignee[task.assigneeID, default: 0] += 1 }
        }
    }
}
