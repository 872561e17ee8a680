import Foundation

/// One task of a team. Named `TaskItem` so that it never shadows Swift's own `Task` in
/// modules that import TaskCore.
public struct TaskItem: Hashable, Sendable {
    /// Store identity.
    public var id: TaskID
    /// The owning team.
    public var teamID: TeamID
    /// The human key, `CORE-42`.
    public var key: TaskKey
    /// 1 to 500 characters, trimmed.
    public var title: String
    /// Free text, possibly empty.
    public var notes: String
    /// Open, in progress or done.
    public var status: TaskStatus
    /// None to urgent.
    public var priority: TaskPriority
    /// The day it is due, if any.
    public var dueDate: CalendarDate?
    /// The member responsible, if any.
    public var assigneeID: UserID?
    /// A free grouping; nil displays as "Uncategorized".
    public var category: String?
    /// The id in the system the task was imported from; unique within the team.
    public var externalID: String?
    /// Who created it.
    public var createdBy: UserID
    /// When it was created.
    public var createdAt: Date
    /// Who changed it last.
    public var updatedBy: UserID
    /// When it was changed last.
    public var updatedAt: Date
    /// Starts at 1 and grows by one with every change; updates state the version they read.
    public var version: Int64

    /// Builds a task as a store read it.
    public init(
        id: TaskID, teamID: TeamID, key: TaskKey, title: String, notes: String, status: TaskStatus,
        priority: TaskPriority, dueDate: CalendarDate?, assigneeID: UserID?, category: String?,
        externalID: String?, createdBy: UserID, createdAt: Date, updatedBy: UserID, updatedAt: Date,
        version: Int64
    ) {
        self.id = id
        self.teamID = teamID
        self.key = key
        self.title = title
        self.notes = notes
        self.status = status
        self.priority = priority
        self.dueDate = dueDate
        self.assigneeID = assigneeID
        self.category = category
        self.externalID = externalID
        self.createdBy = createdBy
        self.createdAt = createdAt
        self.updatedBy = updatedBy
        self.updatedAt = updatedAt
        self.version = version
    }

    /// A new task from a validated draft, at version 1; stores call this so a new task
    /// looks the same whichever store made it.
    public init(id: TaskID, teamID: TeamID, key: TaskKey, draft: TaskDraft, assigneeID: UserID?, by actor: UserID, at time: Date) {
        self.init(
            id: id, teamID: teamID, key: key, title: draft.title, notes: draft.notes, status: draft.status,
            priority: draft.priority, dueDate: draft.dueDate, assigneeID: assigneeID, category: draft.category,
            externalID: draft.externalID, createdBy: actor, createdAt: time, updatedBy: actor, updatedAt: time,
            version: 1)
    }

    /// Whether the task is past its due date and not done, as of `today`.
    public func isOverdue(today: CalendarDate) -> Bool {
        guard let dueDate, status != .done else { return false }
        return dueDate < today
    }

    /// The value of one editable field as history records it (assignee as its user id).
    public func historyValue(of field: TaskField) -> String? {
        switch field {
        case .title: title
        case .notes: notes
        case .status: status.rawValue
        case .priority: priority.rawValue
        case .dueDate: dueDate?.description
        case .assignee: assigneeID?.description
        case .category: category
        case .externalID: externalID
        }
    }

    /// The field changes from `old` to this task; empty when nothing editable differs.
    public func changes(since old: TaskItem?) -> [FieldChange] {
        TaskField.allCases.compactMap { field in
            let before = old?.historyValue(of: field), after = historyValue(of: field)
            if before == after || (old == nil && (after == nil || after == "")) { return nil }
            return FieldChange(field: field, old: before, new: after)
        }
    }

    /// This task with `changes` applied; version, updated-by and updated-at move only when
    /// a field really changes. Stores call this so both apply edits identically.
    public func applying(_ changes: TaskChanges, assigneeID newAssignee: UserID?, by actor: UserID, at time: Date) -> TaskItem {
        var next = self
        if let title = changes.title { next.title = title }
        if let notes = changes.notes { next.notes = notes }
        if let status = changes.status { next.status = status }
        if let priority = changes.priority { next.priority = priority }
        if case .set(let dueDate) = changes.dueDate { next.dueDate = dueDate }
        if case .set = changes.assignee { next.assigneeID = newAssignee }
        if case .set(let category) = changes.category { next.category = category }
        if case .set(let externalID) = changes.externalID { next.externalID = externalID }
        guard next != self else { return self }
        next.updatedBy = actor
        next.updatedAt = time
        next.version = version + 1
        return next
    }
}
