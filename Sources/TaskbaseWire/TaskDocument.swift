import Foundation
import TaskCore

/// A task in JSON. Every field is always present; absent values are `null`:
/// `id`, `key`, `team`, `team_id`, `number`, `title`, `notes`, `status`, `priority`, `due_date`,
/// `overdue`, `assignee` (email), `assignee_id`, `category`, `external_id`, `version`,
/// `created_at`, `created_by` (email), `created_by_id`, `updated_at`, `updated_by` (email),
/// `updated_by_id`. The ids name people who have left the team too, whom a reader cannot look
/// up among the members; a document without them (an older export) still reads.
public struct TaskDocument: Codable, Hashable, Sendable {
    /// Store identity.
    public var id: Int64
    /// `CORE-42`.
    public var key: String
    /// The team's key, `CORE`.
    public var team: String
    /// The team's id: a key can name another team later (one deleted and made again under it).
    /// Nil when the document does not say (an older export).
    public var teamID: Int64?
    /// The number within the team, `42`.
    public var number: Int64
    /// The title.
    public var title: String
    /// Free text, possibly empty.
    public var notes: String
    /// `open`, `in_progress` or `done`.
    public var status: String
    /// `none` to `urgent`.
    public var priority: String
    /// `2026-12-24`, or null.
    public var dueDate: JSONNullable<String>
    /// Past its due date and not done, as of the day the document was made.
    public var overdue: Bool
    /// The assignee's email, or null.
    public var assignee: JSONNullable<String>
    /// The category, or null for uncategorized.
    public var category: JSONNullable<String>
    /// The id in the system the task came from, or null.
    public var externalID: JSONNullable<String>
    /// Grows by one with every change; the HTTP API's ETag.
    public var version: Int64
    /// When it was created.
    public var createdAt: Date
    /// The creator's email.
    public var createdBy: String
    /// When it was changed last.
    public var updatedAt: Date
    /// The email of who changed it last.
    public var updatedBy: String
    /// The assignee's user id, or null; nil when the document does not say.
    public var assigneeID: JSONNullable<Int64>?
    /// The creator's user id; nil when the document does not say.
    public var createdByID: Int64?
    /// The user id of who changed it last; nil when the document does not say.
    public var updatedByID: Int64?

    enum CodingKeys: String, CodingKey {
        case id, key, team, number, title, notes, status, priority, dueDate = "due_date", overdue, assignee, category
        case externalID = "external_id", version, createdAt = "created_at", createdBy = "created_by"
        case updatedAt = "updated_at", updatedBy = "updated_by"
        case assigneeID = "assignee_id", createdByID = "created_by_id", updatedByID = "updated_by_id"
        case teamID = "team_id"
    }

    /// The document of `task`, naming users from `directory` and judging overdue at `today`.
    public init(_ task: TaskItem, users directory: UserDirectory, today: CalendarDate) {
        id = task.id.rawValue
        key = task.key.description
        team = task.key.team.rawValue
        teamID = task.teamID.rawValue
        number = task.key.number
        title = task.title
        notes = task.notes
        status = task.status.rawValue
        priority = task.priority.rawValue
        dueDate = JSONNullable(task.dueDate?.description)
        overdue = task.isOverdue(today: today)
        assignee = JSONNullable(task.assigneeID.map(directory.email))
        category = JSONNullable(task.category)
        externalID = JSONNullable(task.externalID)
        version = task.version
        createdAt = task.createdAt
        createdBy = directory.email(task.createdBy)
        updatedAt = task.updatedAt
        updatedBy = directory.email(task.updatedBy)
        assigneeID = JSONNullable(task.assigneeID?.rawValue)
        createdByID = task.createdBy.rawValue
        updatedByID = task.updatedBy.rawValue
    }

    /// The user ids the document states, by the email it names each with.
    public var statedUserIDs: [String: UserID] {
        var ids: [String: UserID] = [:]
        if let id = createdByID { ids[createdBy] = UserID(id) }
        if let id = updatedByID { ids[updatedBy] = UserID(id) }
        if let email = assignee.value, let id = assigneeID?.value { ids[email] = UserID(id) }
        return ids
    }

    /// The task this document describes, with the ids a reader knows for the team and the
    /// users it names by email (`userID` answers nil for an email it does not know).
    public func task(teamID: TeamID, userID: (String) -> UserID?) throws -> TaskItem {
        func user(_ email: String, _ field: String) throws -> UserID {
            guard let id = userID(email) else { throw TaskError.validation(field: field, reason: "no user \(email) is known") }
            return id
        }
        return TaskItem(
            id: TaskID(id), teamID: teamID, key: try TaskKey(parsing: key, field: "key"), title: title, notes: notes,
            status: try TaskStatus(parsing: status), priority: try TaskPriority(parsing: priority),
            dueDate: try dueDate.value.map { try CalendarDate(iso: $0, field: "due_date") },
            assigneeID: try assignee.value.map { try user($0, "assignee") }, category: category.value, externalID: externalID.value,
            createdBy: try user(createdBy, "created_by"), createdAt: createdAt, updatedBy: try user(updatedBy, "updated_by"),
            updatedAt: updatedAt, version: version)
    }
}

/// `task list --json` and `GET /v1/teams/{team}/tasks`: one page, `tasks` and `next_cursor`
/// (null on the last page).
public struct TaskPageDocument: Codable, Hashable, Sendable {
    /// The page's tasks in the requested order.
    public var tasks: [TaskDocument]
    /// The cursor of the next page, or null.
    public var nextCursor: JSONNullable<String>

    enum CodingKeys: String, CodingKey {
        case tasks, nextCursor = "next_cursor"
    }

    /// A page of `tasks` followed by the page `nextCursor` names.
    public init(tasks: [TaskDocument], nextCursor: JSONNullable<String>) {
        self.tasks = tasks
        self.nextCursor = nextCursor
    }
}

extension TaskDocument: JSONWritable {
    /// The fields in sorted order, as the encoder's `.sortedKeys` puts them; the optional ids
    /// only when the document states them.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("assignee", assignee.value)
        if let assigneeID { writer.field("assignee_id", assigneeID.value) }
        writer.field("category", category.value)
        writer.field("created_at", createdAt)
        writer.field("created_by", createdBy)
        if let createdByID { writer.field("created_by_id", createdByID) }
        writer.field("due_date", dueDate.value)
        writer.field("external_id", externalID.value)
        writer.field("id", id)
        writer.field("key", key)
        writer.field("notes", notes)
        writer.field("number", number)
        writer.field("overdue", overdue)
        writer.field("priority", priority)
        writer.field("status", status)
        writer.field("team", team)
        if let teamID { writer.field("team_id", teamID) }
        writer.field("title", title)
        writer.field("updated_at", updatedAt)
        writer.field("updated_by", updatedBy)
        if let updatedByID { writer.field("updated_by_id", updatedByID) }
        writer.field("version", version)
        writer.endObject()
    }
}

extension TaskPageDocument: JSONWritable {
    /// `next_cursor`, then `tasks`, each written by `TaskDocument`'s writer.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("next_cursor", nextCursor.value)
        writer.key("tasks")
        writer.beginArray()
        for task in tasks {
            writer.element()
            task.write(to: &writer)
        }
        writer.endArray()
        writer.endObject()
    }
}
