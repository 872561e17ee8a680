/// What one read of a team's change log found, for `ChangeLogFollower`.
public struct ChangeLogRead: Sendable {
    /// Logged events after the position read from, in sequence order (at most the limit asked for).
    public var events: [TaskFeedEvent]
    /// The team's last logged sequence when it was read.
    public var lastSequence: Int64
    /// Who may read the team's tasks as of the same read (enabled members of the role asked
    /// for), when the read was asked for them: what a shared fan-out decides its subscribers by.
    public var readers: Set<UserID>?
    /// The id of the team whose log was read: a team deleted and made again under its key has
    /// another id and a log of its own, numbered from 1 again.
    public var teamID: TeamID

    /// Records one read.
    public init(events: [TaskFeedEvent], lastSequence: Int64, readers: Set<UserID>? = nil, teamID: TeamID) {
        self.events = events
        self.lastSequence = lastSequence
        self.readers = readers
        self.teamID = teamID
    }
}

/// The one way both stores turn a change log into a `TaskChangeStream`: the doorbell only says
/// "read again", so whatever rings it (a forged or junk NOTIFY included) costs at most one read
/// and can neither inject an event nor end the stream; every event comes from `read`, which runs
/// under the watcher's own authorization.
public enum ChangeLogFollower {
    /// How many events one read asks for; a full page is followed by another read at once.
    public static let pageSize = 1_000
    /// How often the doorbell's rings are read on (`PacedRings`): a burst of four at once (real
    /// writes come a few together and wait for nothing), then one per 50 ms, so a flood of forged
    /// rings costs a reader at most that, and a real change in one waits 50 ms at most.
    public static let ringPace = RingPace(spacing: .milliseconds(50), burst: 4)

    /// Reads the log after a position (exclusive), at most `limit` events, checking access.
    public typealias Read = @Sendable (_ after: Int64, _ limit: Int) async throws -> ChangeLogRead

    /// The stream of team `team` from `after` (nil: the log's end now — ring `doorbell` only
    /// once it is set up, so nothing committed after this returns is missed). A doorbell that
    /// fails (a lost connection) ends the stream with its error. `finish` runs once the
    /// stream has ended, however it ended.
    public static func follow(
        _ team: TeamKey, after: Int64?, doorbell: AsyncThrowingStream<Void, any Error>, read: @escaping Read,
        finish: @escaping @Sendable () async -> Void = {}
    ) async throws -> TaskChangeStream {
        var start = after ?? 0
        do {
            if after == nil { start = try await read(Int64.max, 0).lastSequence }
        } catch {
            await finish()
            throw error
        }
        let (stream, continuation) = TaskChangeStream.makeStream()
        let follower = Task {
            var position = start
            var rings = doorbell.paced(ringPace).makeAsyncIterator()
            do {
                while true {
                    let page: ChangeLogRead
                    do {
                        page = try await read(position, pageSize)
                    } catch TaskError.notFound {
                        throw TaskError.watcherRemoved(from: team)
                    }
                    for event in resumed(from: position, page) {
                        continuation.yield(event)
                        position = event.sequence
                    }
                    if page.events.count < pageSize {
                        guard try await rings.next() != nil else { break }
                    }
                }
                continuation.finish()
            } catch {
                if Task.isCancelled { continuation.finish() } else { continuation.finish(throwing: error) }
            }
            await finish()
        }
        continuation.onTermination = { _ in follower.cancel() }
        return stream
    }

    /// The events of `page` as seen from `position`: when the log no longer holds the next
    /// sequence (pruned, or a resume point from elsewhere), a `resync` through the gap comes first.
    public static func resumed(from position: Int64, _ page: ChangeLogRead) -> [TaskFeedEvent] {
        // A resume point past the log's end (the database restored from an older copy, or an
        // id not of this log): what is logged up to it would be skipped. A resync through the
        // end, from which the reader carries on.
        if page.events.isEmpty, page.lastSequence < position { return [.resync(through: page.lastSequence)] }
        let next = page.events.first?.sequence ?? (page.lastSequence + 1)
        guard next > position + 1 else { return page.events }
        return [.resync(through: next - 1)] + page.events
    }
}
