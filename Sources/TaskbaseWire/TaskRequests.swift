import TaskCore

/// The body of `POST /v1/teams/{team}/tasks`: `title` is required; `notes`, `status`, `priority`,
/// `due_date` (`YYYY-MM-DD`), `assignee` (email or `#id`), `category` and `external_id` may be
/// left out (or null) for their defaults.
public struct CreateTaskRequest: Codable, Hashable, Sendable {
    /// 1 to 500 characters, trimmed.
    public var title: String
    /// Free text; default empty.
    public var notes: String?
    /// Default `open`.
    public var status: String?
    /// Default `none`.
    public var priority: String?
    /// `YYYY-MM-DD`.
    public var dueDate: String?
    /// A member's email, or `#id`.
    public var assignee: String?
    /// A free grouping.
    public var category: String?
    /// The id in the system the task comes from; unique in the team.
    public var externalID: String?

    enum CodingKeys: String, CodingKey {
        case title, notes, status, priority, dueDate = "due_date", assignee, category, externalID = "external_id"
    }

    /// A request with these fields.
    public init(
        title: String, notes: String? = nil, status: String? = nil, priority: String? = nil, dueDate: String? = nil,
        assignee: String? = nil, category: String? = nil, externalID: String? = nil
    ) {
        self.title = title
        self.notes = notes
        self.status = status
        self.priority = priority
        self.dueDate = dueDate
        self.assignee = assignee
        self.category = category
        self.externalID = externalID
    }

    /// The validated draft; the first bad field is a validation error naming it as spelled here.
    public func draft() throws -> TaskDraft {
        try TaskDraft(
            title: title, notes: notes ?? "", status: try status.map { try TaskStatus(parsing: $0) } ?? .open,
            priority: try priority.map { try TaskPriority(parsing: $0) } ?? TaskPriority.none,
            dueDate: try dueDate.map { try CalendarDate(iso: $0, field: "due_date") }, assignee: assignee.map(UserRef.init),
            category: category, externalID: externalID)
    }
}

/// The body of `PATCH /v1/tasks/{key}`, a JSON Merge Patch (RFC 7396): a field left out stays,
/// `null` clears an optional one (`due_date`, `assignee`, `category`, `external_id`; `notes`
/// becomes empty), a value replaces it. `title`, `status` and `priority` cannot be null.
public struct TaskMergePatch: Codable, Hashable, Sendable {
    /// The new title.
    public var title: Patch<String?> = .unchanged
    /// The new notes; null empties them.
    public var notes: Patch<String?> = .unchanged
    /// The new status.
    public var status: Patch<String?> = .unchanged
    /// The new priority.
    public var priority: Patch<String?> = .unchanged
    /// The new due date, `YYYY-MM-DD`, or null for none.
    public var dueDate: Patch<String?> = .unchanged
    /// The new assignee (email or `#id`), or null to unassign.
    public var assignee: Patch<String?> = .unchanged
    /// The new category, or null for uncategorized.
    public var category: Patch<String?> = .unchanged
    /// The new external id, or null for none.
    public var externalID: Patch<String?> = .unchanged

    enum CodingKeys: String, CodingKey, CaseIterable {
        case title, notes, status, priority, dueDate = "due_date", assignee, category, externalID = "external_id"
    }

    /// A patch leaving every field as it is; set the fields to change.
    public init() {}

    /// Reads a merge patch; a field the patch does not know is a validation error.
    public init(from decoder: any Decoder) throws {
        let names = try decoder.container(keyedBy: AnyKey.self)
        if let unknown = names.allKeys.first(where: { CodingKeys(stringValue: $0.stringValue) == nil }) {
            throw TaskError.validation(field: unknown.stringValue, reason: "a task has no such field")
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func field(_ key: CodingKeys) throws -> Patch<String?> {
            guard container.contains(key) else { return .unchanged }
            return .set(try container.decodeNil(forKey: key) ? nil : try container.decode(String.self, forKey: key))
        }
        title = try field(.title)
        notes = try field(.notes)
        status = try field(.status)
        priority = try field(.priority)
        dueDate = try field(.dueDate)
        assignee = try field(.assignee)
        category = try field(.category)
        externalID = try field(.externalID)
    }

    /// Writes only the fields that change: null for a cleared one.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        let fields: [(CodingKeys, Patch<String?>)] = [
            (.title, title), (.notes, notes), (.status, status), (.priority, priority), (.dueDate, dueDate), (.assignee, assignee),
            (.category, category), (.externalID, externalID),
        ]
        for (key, patch) in fields {
            guard case .set(let value) = patch else { continue }
            if let value { try container.encode(value, forKey: key) } else { try container.encodeNil(forKey: key) }
        }
    }

    /// The validated edit; the first bad field is a validation error naming it as spelled here.
    public func changes() throws -> TaskChanges {
        try TaskChanges(
            title: try required(title, "title"), notes: notesText,
            status: try required(status, "status").map { try TaskStatus(parsing: $0) },
            priority: try required(priority, "priority").map { try TaskPriority(parsing: $0) },
            dueDate: try dueDate.map { try $0.map { try CalendarDate(iso: $0, field: "due_date") } },
            assignee: assignee.map { $0.map(UserRef.init) }, category: category, externalID: externalID)
    }

    private var notesText: String? {
        if case .set(let value) = notes { value ?? "" } else { nil }
    }

    private func required(_ patch: Patch<String?>, _ field: String) throws -> String? {
        switch patch {
        case .unchanged: return nil
        case .set(nil):
            throw TaskError.validation(field: field, reason: "the \(TaskError.spoken(field)) cannot be null; leave it out to keep it")
        case .set(let value?): return value
        }
    }
}

extension Patch {
    /// The edit with its value transformed, or still unchanged.
    fileprivate func map<Other: Hashable & Sendable>(_ transform: (Value) throws -> Other) rethrows -> Patch<Other> {
        switch self {
        case .unchanged: .unchanged
        case .set(let value): .set(try transform(value))
        }
    }

}

/// Any JSON object key, for finding the ones a document does not know.
struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
