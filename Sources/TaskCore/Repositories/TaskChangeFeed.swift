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

    /// One read of the team's log after `position` (at most `limit` events) once `access`
    /// passes, with the team's `readers` for `access`'s role as of the same read: a fan-out
    /// reads once for all its subscribers and decides each of them by that set.
    func changeLog(in team: TeamKey, after position: Int64, limit: Int, access: AccessRequirement) async throws -> ChangeLogRead

    /// The team's doorbell: it rings (carrying nothing) after every change to the team's log or
    /// to who may read the team; rings coalesce while nobody reads. Ask for it before the read it
    /// should follow, so nothing committed in between is missed.
    func doorbell(of team: TeamKey) async throws -> TeamDoorbell
}

/// A team's doorbell (`TaskChangeFeed.doorbell(of:)`): `rings` ends with the error that broke
/// it (a lost listening session); `stop` ends it and leaves nothing listening behind.
public struct TeamDoorbell: Sendable {
    /// One element per ring (coalesced).
    public var rings: AsyncThrowingStream<Void, any Error>
    /// Ends the doorbell.
    public var stop: @Sendable () async -> Void

    /// A doorbell of `rings`, ended by `stop`.
    public init(rings: AsyncThrowingStream<Void, any Error>, stop: @escaping @Sendable () async -> Void) {
        self.rings = rings
        self.stop = stop
    }
}
