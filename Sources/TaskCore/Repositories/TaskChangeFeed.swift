/// What a watcher of a team receives: one logged change, or word that it must reload.
public enum TaskFeedEvent: Hashable, Sendable {
    /// One change, in sequence order.
    case change(TaskChange)
    /// The changes up to and including `through` cannot be delivered one by one (a bulk
    /// import, or a resume point the log no longer holds): reload the team, then continue.
    case resync(through: Int64)

    /// The log position this event brings a watcher to.
    public var sequence: Int64 {
        switch self {
        case .change(let change): change.sequence
        case .resync(let through): through
        }
    }
}

/// The changes of one team, made by anyone in any process: first what the log holds after the
/// resume point, then live. It ends by throwing `TaskError.permissionDenied` once the watcher
/// may no longer read the team.
public typealias TaskChangeStream = AsyncThrowingStream<TaskFeedEvent, any Error>

/// A source of task changes: a per-team change log, with a doorbell (NOTIFY in Postgres, the
/// store's own mutations in memory) saying when to read it again.
public protocol TaskChangeFeed: Sendable {
    /// Subscribes to team `team` once `access` (read) is verified. `after: nil` delivers every
    /// change committed after this returns; `after: n` first every logged change with sequence
    /// above `n`. No gaps, no duplicates, in sequence order. The subscription ends when the
    /// consumer stops iterating or its task is cancelled, leaving no listener behind.
    func changes(in team: TeamKey, after: Int64?, access: AccessRequirement) async throws -> TaskChangeStream
}
