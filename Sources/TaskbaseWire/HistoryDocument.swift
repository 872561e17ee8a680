import Foundation
import TaskCore

/// One history entry in JSON: `task_id`, `version`, `kind` (created, updated, imported,
/// reimported, deleted), `at`, `actor` (email), `actor_id`, and `changes`, each with `field`,
/// `old` and `new` (null when empty; an assignee as an email, with its user id in `old_id` and
/// `new_id`).
public struct HistoryDocument: Codable, Hashable, Sendable {
    /// One field's change.
    public struct Change: Codable, Hashable, Sendable {
        /// The field's name, `status`.
        public var field: String
        /// The value before, or null.
        public var old: JSONNullable<String>
        /// The value after, or null.
        public var new: JSONNullable<String>
        /// For an assignee: the user id before, or null; nil for other fields.
        public var oldID: JSONNullable<Int64>?
        /// For an assignee: the user id after, or null; nil for other fields.
        public var newID: JSONNullable<Int64>?

        enum CodingKeys: String, CodingKey {
            case field, old, new, oldID = "old_id", newID = "new_id"
        }
    }

    /// The version this entry made.
    public var version: Int64
    /// created, updated, imported, reimported or deleted.
    public var kind: String
    /// When.
    public var at: Date
    /// Who, by email.
    public var actor: String
    /// What changed.
    public var changes: [Change]
    /// Who, by user id (they may have left the team since); nil when the document does not say.
    public var actorID: Int64?
    /// The task's id (it outlives the task: a deleted task's history stays); nil when the
    /// document does not say.
    public var taskID: Int64?

    enum CodingKeys: String, CodingKey {
        case taskID = "task_id", version, kind, at, actor, changes, actorID = "actor_id"
    }

    /// The document of `entry`, naming users from `directory`.
    public init(_ entry: TaskHistoryEntry, users directory: UserDirectory) {
        version = entry.version
        kind = entry.kind.rawValue
        at = entry.at
        actor = directory.email(entry.actorID)
        actorID = entry.actorID.rawValue
        taskID = entry.taskID.rawValue
        changes = entry.changes.map { change in
            let isAssignee = change.field == .assignee
            return Change(
                field: change.field.rawValue,
                old: JSONNullable(Self.value(change.old, of: change.field, users: directory)),
                new: JSONNullable(Self.value(change.new, of: change.field, users: directory)),
                oldID: isAssignee ? JSONNullable(change.old.flatMap(Int64.init)) : nil,
                newID: isAssignee ? JSONNullable(change.new.flatMap(Int64.init)) : nil)
        }
    }

    /// The user ids the document states, by the email (or `#id`) it names each with.
    public var statedUserIDs: [String: UserID] {
        var ids: [String: UserID] = [:]
        if let id = actorID { ids[actor] = UserID(id) }
        for change in changes {
            if let email = change.old.value, let id = change.oldID?.value { ids[email] = UserID(id) }
            if let email = change.new.value, let id = change.newID?.value { ids[email] = UserID(id) }
        }
        return ids
    }

    /// The user ids an entry names: its actor and any assignee before or after.
    public static func userIDs(in entry: TaskHistoryEntry) -> [UserID] {
        [entry.actorID]
            + entry.changes.filter { $0.field == .assignee }
            .flatMap { [$0.old, $0.new] }.compactMap { $0.flatMap(Int64.init).map(UserID.init) }
    }

    /// A recorded value as people read it: an assignee's id becomes their email.
    public static func value(_ text: String?, of field: TaskField, users directory: UserDirectory) -> String? {
        guard let text, !text.isEmpty else { return nil }
        if field == .assignee, let id = Int64(text) { return directory.email(UserID(id)) }
        return text
    }
}
