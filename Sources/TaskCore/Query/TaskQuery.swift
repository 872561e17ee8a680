import Foundation

/// A task list request: filters (all must hold), order and page. `matches` and `orders`
/// define the semantics every store reproduces (the memory store calls them directly).
public struct TaskQuery: Hashable, Sendable {
    /// The largest page.
    public static let limitRange = 1...1000

    /// Only these statuses; empty means any.
    public var statuses: Set<TaskStatus>
    /// Only this assignee, or only unassigned tasks.
    public var assignee: AssigneeFilter?
    /// Only this category, or only uncategorized tasks.
    public var category: CategoryFilter?
    /// Only tasks due strictly before this date.
    public var dueBefore: CalendarDate?
    /// Only tasks due strictly after this date.
    public var dueAfter: CalendarDate?
    /// Only tasks past due and not done, as of the service's clock.
    public var overdueOnly: Bool
    /// Only tasks whose title or notes contain this text, ignoring case, surrounding spaces and
    /// how accents are encoded (`searchText`).
    public var text: String?
    /// The order.
    public var sort: TaskSort
    /// Reverse the order.
    public var descending: Bool
    /// Page size, 1-1000.
    public var limit: Int
    /// Continue after this position (from the previous page's `nextCursor`).
    public var after: TaskCursor?

    /// A query; by default every task in number order, 50 per page.
    public init(
        statuses: Set<TaskStatus> = [], assignee: AssigneeFilter? = nil, category: CategoryFilter? = nil,
        dueBefore: CalendarDate? = nil, dueAfter: CalendarDate? = nil, overdueOnly: Bool = false,
        text: String? = nil, sort: TaskSort = .number, descending: Bool = false, limit: Int = 50,
        after: TaskCursor? = nil
    ) {
        self.statuses = statuses
        self.assignee = assignee
        self.category = category
        self.dueBefore = dueBefore
        self.dueAfter = dueAfter
        self.overdueOnly = overdueOnly
        self.text = text
        self.sort = sort
        self.descending = descending
        self.limit = limit
        self.after = after
    }

    /// The text filter as both stores apply it: trimmed and composed, nil when nothing is left.
    /// Stores compare it ignoring case (`TextRules.folded`), code point by code point.
    public var searchText: String? {
        text.map { TextRules.composed($0.trimmingSpaces()) }.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The category filter's name as both stores compare it (ignoring case): trimmed and
    /// composed, as categories are stored.
    public var categoryName: String? {
        if case .named(let name) = category { TextRules.composed(name.trimmingSpaces()) } else { nil }
    }

    /// Checks the limit, that no filter holds a NUL character (no stored text can, and the
    /// database refuses it as a parameter), and that the cursor belongs to this order.
    public func validate() throws {
        try PageLimit.check(limit, in: Self.limitRange, of: "tasks")
        var assigneeEmail: String?
        if case .user(.email(let email)) = assignee {
            try TaskFields.rejectMalformedID(email, field: "assignee")
            assigneeEmail = email
        }
        var categoryText: String?
        if case .named(let name) = category { categoryText = name }
        for (field, value) in [("text", text), ("category", categoryText), ("assignee", assigneeEmail)] {
            guard let value, TextRules.holdsNUL(value) else { continue }
            throw TaskError.validation(field: field, reason: "a NUL character (U+0000) in the \(field) filter can match nothing; leave it out")
        }
        if let after, after.sort != sort || after.descending != descending {
            throw TaskError.validation(
                field: "cursor",
                reason: "the cursor belongs to a list sorted by \(after.sort.rawValue)\(after.descending ? " descending" : ""), not this one")
        }
    }

    /// Whether `task` passes every filter and lies after the cursor, as of `today`.
    public func matches(_ task: TaskItem, today: CalendarDate) -> Bool {
        if !statuses.isEmpty, !statuses.contains(task.status) { return false }
        switch assignee {
        case nil: break
        case .unassigned: if task.assigneeID != nil { return false }
        case .user(.id(let id)): if task.assigneeID != id { return false }
        case .user(.email): return false
        }
        switch category {
        case nil: break
        case .uncategorized: if task.category != nil { return false }
        case .named: if task.category.map(TextRules.folded) != categoryName.map(TextRules.folded) { return false }
        }
        if let dueBefore, !(task.dueDate.map { $0 < dueBefore } ?? false) { return false }
        if let dueAfter, !(task.dueDate.map { $0 > dueAfter } ?? false) { return false }
        if overdueOnly, !task.isOverdue(today: today) { return false }
        if let text = searchText.map(TextRules.folded),
            !TextRules.holds(TextRules.folded(task.title), text), !TextRules.holds(TextRules.folded(task.notes), text)
        {
            return false
        }
        if let after, !after.precedes(task) { return false }
        return true
    }

    /// Whether `lhs` comes before `rhs` in this query's order.
    public func orders(_ lhs: TaskItem, before rhs: TaskItem) -> Bool {
        let left = (sort.primaryKey(of: lhs, descending: descending), lhs.key.number)
        let right = (sort.primaryKey(of: rhs, descending: descending), rhs.key.number)
        return descending ? left > right : left < right
    }

    /// The page of `candidates` (already filtered) this query asks for, with the cursor for the next.
    public func page(of candidates: [TaskItem]) -> TaskPage {
        let sorted = candidates.sorted(by: orders)
        let tasks = Array(sorted.prefix(limit))
        let next = sorted.count > limit ? tasks.last.map { TaskCursor(after: $0, sort: sort, descending: descending) } : nil
        return TaskPage(tasks: tasks, nextCursor: next)
    }
}
