/// A new task's fields, validated and normalised: holding one means every rule passed
/// (title, notes, category, external id). The assignee's membership is checked when stored.
public struct TaskDraft: Hashable, Sendable {
    /// Trimmed, 1-500 characters.
    public let title: String
    /// Possibly empty.
    public let notes: String
    /// Initial status.
    public let status: TaskStatus
    /// Initial priority.
    public let priority: TaskPriority
    /// Due date, if any.
    public let dueDate: CalendarDate?
    /// Who it is for, if anyone; must be a member of the team.
    public let assignee: UserRef?
    /// Grouping, nil for uncategorized.
    public let category: String?
    /// Id in the source system, unique within the team.
    public let externalID: String?

    /// Validates every field; the first bad one is a validation error naming it.
    public init(
        title: String, notes: String = "", status: TaskStatus = .open, priority: TaskPriority = .none,
        dueDate: CalendarDate? = nil, assignee: UserRef? = nil, category: String? = nil, externalID: String? = nil
    ) throws {
        self.title = try TaskFields.title(title)
        self.notes = try TaskFields.notes(notes)
        self.status = status
        self.priority = priority
        self.dueDate = dueDate
        self.assignee = try TaskFields.assignee(assignee)
        self.category = try TaskFields.category(category)
        self.externalID = try TaskFields.externalID(externalID)
    }
}
