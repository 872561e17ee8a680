/// An edit of a task: each field left alone unless given. Validated like a draft, so
/// holding one means every given value passed the rules.
public struct TaskChanges: Hashable, Sendable {
    /// New title, or nil to keep.
    public let title: String?
    /// New notes, or nil to keep.
    public let notes: String?
    /// New status, or nil to keep.
    public let status: TaskStatus?
    /// New priority, or nil to keep.
    public let priority: TaskPriority?
    /// New due date or none.
    public let dueDate: Patch<CalendarDate?>
    /// New assignee or none; must be a member of the team.
    public let assignee: Patch<UserRef?>
    /// New category or none (empty text means none).
    public let category: Patch<String?>
    /// New external id or none (empty text means none).
    public let externalID: Patch<String?>

    /// Validates every given field; the first bad one is a validation error naming it.
    public init(
        title: String? = nil, notes: String? = nil, status: TaskStatus? = nil, priority: TaskPriority? = nil,
        dueDate: Patch<CalendarDate?> = .unchanged, assignee: Patch<UserRef?> = .unchanged,
        category: Patch<String?> = .unchanged, externalID: Patch<String?> = .unchanged
    ) throws {
        self.title = try title.map(TaskFields.title)
        self.notes = try notes.map(TaskFields.notes)
        self.status = status
        self.priority = priority
        self.dueDate = dueDate
        if case .set(let ref) = assignee { self.assignee = .set(try TaskFields.assignee(ref)) } else { self.assignee = .unchanged }
        if case .set(let value) = category { self.category = .set(try TaskFields.category(value)) } else { self.category = .unchanged }
        if case .set(let value) = externalID { self.externalID = .set(try TaskFields.externalID(value)) } else { self.externalID = .unchanged }
    }

    /// Every field of `draft` but those `keeping` names as an edit: the importer's update of
    /// an existing task.
    public init(replacingWith draft: TaskDraft, keeping: TaskImportDraft.Fields = []) {
        title = draft.title
        notes = keeping.contains(.notes) ? nil : draft.notes
        status = keeping.contains(.status) ? nil : draft.status
        priority = keeping.contains(.priority) ? nil : draft.priority
        dueDate = keeping.contains(.dueDate) ? .unchanged : .set(draft.dueDate)
        assignee = keeping.contains(.assignee) ? .unchanged : .set(draft.assignee)
        category = keeping.contains(.category) ? .unchanged : .set(draft.category)
        externalID = .set(draft.externalID)
    }

    /// The assignee this edit sets, if it sets one (nil inside means "unassign").
    public var assigneeToResolve: UserRef? {
        if case .set(let ref) = assignee { ref } else { nil }
    }
}
