import Foundation

/// One recorded change of a task: who, when, what kind of change, and each field's old and new value.
public struct TaskHistoryEntry: Hashable, Sendable {
    /// What happened to the task.
    public enum Kind: String, Sendable, CaseIterable {
        /// Created by a person or program through the service.
        case created
        /// Edited (including complete, reopen, assign).
        case updated
        /// Created by an import.
        case imported
        /// Changed by an import.
        case reimported
        /// Deleted: the last entry, with no changes and the version that was deleted.
        case deleted
    }

    /// The task.
    public var taskID: TaskID
    /// The version the task had after this change.
    public var version: Int64
    /// Who made the change.
    public var actorID: UserID
    /// When.
    public var at: Date
    /// What kind of change.
    public var kind: Kind
    /// The fields that changed, in `TaskField` order.
    public var changes: [FieldChange]

    /// Builds an entry as a store recorded it.
    public init(taskID: TaskID, version: Int64, actorID: UserID, at: Date, kind: Kind, changes: [FieldChange]) {
        self.taskID = taskID
        self.version = version
        self.actorID = actorID
        self.at = at
        self.kind = kind
        self.changes = changes
    }

    /// The entry recording the step from `old` (nil when created) to `new`.
    public init(from old: TaskItem?, to new: TaskItem, kind: Kind) {
        self.init(taskID: new.id, version: new.version, actorID: new.updatedBy, at: new.updatedAt, kind: kind, changes: new.changes(since: old))
    }

    /// The entry recording that `actor` deleted `task` at `time`.
    public init(deleting task: TaskItem, by actor: UserID, at time: Date) {
        self.init(taskID: task.id, version: task.version, actorID: actor, at: time, kind: .deleted, changes: [])
    }
}
