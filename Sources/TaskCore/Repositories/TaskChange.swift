import Foundation

/// One change to a task as the team's change log records it. Small on purpose (a watcher
/// fetches the task for its fields); `sequence` is its place in the log.
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
    /// Its position in the team's change log: per team, gapless, strictly increasing in commit
    /// order (deletions included), so a watcher resumes after the last one it saw.
    public var sequence: Int64

    /// Describes one logged change.
    public init(kind: Kind, key: TaskKey, taskID: TaskID, version: Int64, actorID: UserID, at: Date, sequence: Int64) {
        self.kind = kind
        self.key = key
        self.taskID = taskID
        self.version = version
        self.actorID = actorID
        self.at = at
        self.sequence = sequence
    }

    /// The change that produced `task` (created or updated), made by its last updater, logged at `sequence`.
    public init(_ kind: Kind, _ task: TaskItem, sequence: Int64) {
        self.init(
            kind: kind, key: task.key, taskID: task.id, version: task.version, actorID: task.updatedBy, at: task.updatedAt, sequence: sequence)
    }

    /// Above this many changed tasks an import is logged as one bulk entry, which watchers
    /// receive as `TaskFeedEvent.resync` (a watcher would drown in per-task events).
    public static let bulkImportThreshold = 10_000
}
