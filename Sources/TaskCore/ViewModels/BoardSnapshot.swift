/// A team's board at one moment, ready to display: the tasks grouped by category, counted by
/// status, with the overdue ones counted against the board's clock. Values only, so a view
/// compares two snapshots to know what to redraw.
public struct BoardSnapshot: Hashable, Sendable {
    /// One category's tasks, in number order.
    public struct Group: Hashable, Sendable {
        /// The category as displayed ("Uncategorized" for none).
        public var name: String
        /// Its tasks as rows.
        public var rows: [TaskRow]

        /// A group named `name` holding `rows`.
        public init(name: String, rows: [TaskRow]) {
            self.name = name
            self.rows = rows
        }
    }

    /// The team shown.
    public var team: TeamKey
    /// The groups by name (ignoring case), "Uncategorized" last; a category with no task is absent.
    public var groups: [Group]
    /// Tasks per status, every status present (zero when none).
    public var byStatus: [TaskStatus: Int]
    /// Tasks past due and not done as of `today`.
    public var overdue: Int
    /// The day overdue was judged on.
    public var today: CalendarDate
    /// Whether the team had more tasks than the loaded page (the board shows the first page
    /// in number order plus whatever changed since).
    public var isTruncated: Bool

    /// Every task shown.
    public var total: Int { groups.reduce(0) { $0 + $1.rows.count } }

    /// The board of `tasks`, naming assignees from `members` and judging overdue at `today`.
    public init(team: TeamKey, tasks: some Sequence<TaskItem>, members: [Member], today: CalendarDate, isTruncated: Bool = false) {
        let sorted = tasks.sorted { $0.key.number < $1.key.number }
        let rows = TaskRow.rows(sorted, members: members, today: today)
        var byName: [String: [TaskRow]] = [:]
        for row in rows { byName[row.category, default: []].append(row) }
        self.team = team
        groups = byName.map { Group(name: $0.key, rows: $0.value) }.sorted(by: Self.displayOrder)
        byStatus = Dictionary(uniqueKeysWithValues: TaskStatus.allCases.map { status in (status, sorted.count { $0.status == status }) })
        overdue = rows.count { $0.isOverdue }
        self.today = today
        self.isTruncated = isTruncated
    }

    /// Categories by name ignoring case (then exactly, so "Docs" and "docs" keep one order),
    /// "Uncategorized" after every named one.
    static func displayOrder(_ lhs: Group, _ rhs: Group) -> Bool {
        let left = (lhs.name == TaskRow.uncategorized ? 1 : 0, lhs.name.lowercased(), lhs.name)
        let right = (rhs.name == TaskRow.uncategorized ? 1 : 0, rhs.name.lowercased(), rhs.name)
        return left < right
    }
}
