import Foundation

/// One change to a task as the change feed reports it. Small on purpose (it travels in a
/// Postgres NOTIFY payload); fetch the task for its fields.
public struct TaskChange: Hashable, Sendable {
    /// What happened.
    public enum Kind: String, Sendable, CaseIterable {
        /// A task was created (also by an import).
        case created
        /// A task was changed (also by an import).
        case updated
        /// A task was deleted.
        case deleted
    }

    /// What happened.
    public var kind: Kind
    /// The task's key.
    public var key: TaskKey
    /// The task's id.
    public var taskID: TaskID
    /// The task's version after the change (the last version for a deletion).
    public var version: Int64
    /// Who did it.
    public var actorID: UserID
    /// When.
    public var at: Date

    /// Describes one change.
    public init(kind: Kind, key: TaskKey, taskID: TaskID, version: Int64, actorID: UserID, at: Date) {
        self.kind = kind
        self.key = key
        self.taskID = taskID
        self.version = version
        self.actorID = actorID
        self.at = at
    }

    /// The change that produced `task` (created or updated), made by its last updater.
    public init(_ kind: Kind, _ task: TaskItem) {
        self.init(kind: kind, key: task.key, taskID: task.id, version: task.version, actorID: task.updatedBy, at: task.updatedAt)
    }
}
