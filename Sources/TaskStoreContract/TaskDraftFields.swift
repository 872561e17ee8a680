import TaskCore

/// The optional fields of a draft, so checks can state only what matters to them.
public struct TaskDraftFields: Sendable {
    /// The notes.
    public var notes: String
    /// The status.
    public var status: TaskStatus
    /// The priority.
    public var priority: TaskPriority
    /// The due date.
    public var dueDate: CalendarDate?
    /// The assignee.
    public var assignee: UserRef?
    /// The category.
    public var category: String?
    /// The external id.
    public var externalID: String?

    /// The given fields; every one defaults to "not set".
    public init(
        notes: String = "", status: TaskStatus = .open, priority: TaskPriority = .none, dueDate: CalendarDate? = nil,
        assignee: UserRef? = nil, category: String? = nil, externalID: String? = nil
    ) {
        self.notes = notes
        self.status = status
        self.priority = priority
        self.dueDate = dueDate
        self.assignee = assignee
        self.category = category
        self.externalID = externalID
    }

    /// The draft with `title` and these fields.
    public func draft(title: String) throws -> TaskDraft {
        try TaskDraft(
            title: title, notes: notes, status: status, priority: priority, dueDate: dueDate, assignee: assignee, category: category,
            externalID: externalID)
    }
}
