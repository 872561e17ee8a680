/// A task as a list displays it: every field already text, with the display rules applied
/// (no category reads "Uncategorized", no assignee "Unassigned", overdue judged against today).
public struct TaskRow: Hashable, Sendable {
    /// What a missing category displays as.
    public static let uncategorized = "Uncategorized"
    /// What a missing assignee displays as.
    public static let unassigned = "Unassigned"

    /// `CORE-42`.
    public var key: String
    /// The title.
    public var title: String
    /// `open`, `in_progress` or `done`.
    public var status: String
    /// `none` to `urgent`.
    public var priority: String
    /// ISO due date, or empty.
    public var due: String
    /// The assignee's email, or "Unassigned".
    public var assignee: String
    /// The category, or "Uncategorized".
    public var category: String
    /// Past due and not done as of the given day.
    public var isOverdue: Bool
    /// The version to state when editing.
    public var version: Int64

    /// The display form of `task`, naming its assignee from `members` and judging overdue at `today`.
    public init(_ task: TaskItem, members: [UserID: User], today: CalendarDate) {
        key = task.key.description
        title = task.title
        status = task.status.rawValue
        priority = task.priority.rawValue
        due = task.dueDate?.description ?? ""
        assignee = Self.assigneeLabel(task.assigneeID, users: members)
        category = Self.categoryLabel(task.category)
        isOverdue = task.isOverdue(today: today)
        version = task.version
    }

    /// How a category displays: itself, or "Uncategorized" for none.
    static func categoryLabel(_ category: String?) -> String {
        category ?? uncategorized
    }

    /// How an assignee displays: their email from `users`, `#id` when not there, or "Unassigned" for none.
    static func assigneeLabel(_ id: UserID?, users: [UserID: User]) -> String {
        id.map { users[$0]?.email ?? "#\($0)" } ?? unassigned
    }

    /// The team's `members` by id, as `assigneeLabel` looks them up.
    static func users(_ members: [Member]) -> [UserID: User] {
        Dictionary(members.map { ($0.user.id, $0.user) }, uniquingKeysWith: { first, _ in first })
    }

    /// The rows of `tasks`, naming assignees from the team's `members`.
    public static func rows(_ tasks: [TaskItem], members: [Member], today: CalendarDate) -> [TaskRow] {
        let users = Self.users(members)
        return tasks.map { TaskRow($0, members: users, today: today) }
    }
}
