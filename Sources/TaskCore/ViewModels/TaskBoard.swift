import Foundation

/// The view model of a team's board: loads a page of the team's tasks through any
/// `TaskSession` (in process or over HTTP), then stays current from the team's change feed,
/// re-reading each changed task. A view binds to `snapshots()`; nothing here needs SwiftUI.
public actor TaskBoard {
    /// The team shown.
    public nonisolated let team: TeamKey
    private let session: any TaskSession
    private let clock: TaskClock
    private let pageSize: Int
    private var tasks: [Int64: TaskItem] = [:]
    private var members: [Member] = []
    private var isTruncated = false
    private var watchers: [UUID: AsyncStream<BoardSnapshot>.Continuation] = [:]
    private var following: Task<Void, Never>?
    private var sequence: Int64?
    /// The board as last loaded or updated; nil before `start()` has loaded it.
    public private(set) var current: BoardSnapshot?
    /// Why following the changes stopped, if it stopped on an error (the board keeps its
    /// last snapshot and its watchers' streams end).
    public private(set) var failure: (any Error)?

    /// A board of `team` as `session` sees it, judging overdue with `clock`, loading at most
    /// `pageSize` tasks (first by number) before following changes.
    public init(session: any TaskSession, team: TeamKey, clock: TaskClock = .system, pageSize: Int = TaskQuery.limitRange.upperBound) {
        self.session = session
        self.team = team
        self.clock = clock
        self.pageSize = pageSize
    }

    /// Subscribes to the team's changes, loads the first page and starts following. Throws
    /// what the first load throws (e.g. `notFound` for an outsider); later refusals (the user
    /// was removed) end the snapshot streams and are kept in `failure`.
    public func start() async throws {
        guard following == nil else { return }
        let changes = try await session.changes(in: team)
        try await reload()
        following = Task { [weak self] in await self?.follow(changes) }
    }

    /// Stops following changes and ends every snapshot stream.
    public func stop() {
        following?.cancel()
        following = nil
        finishWatchers()
    }

    /// Every snapshot from now on, starting with the current one when loaded. The stream ends
    /// when the board stops; dropping it stops its updates.
    public func snapshots() -> AsyncStream<BoardSnapshot> {
        let (stream, continuation) = AsyncStream.makeStream(of: BoardSnapshot.self, bufferingPolicy: .bufferingNewest(1))
        let id = UUID()
        if let current { continuation.yield(current) }
        if following == nil, current != nil {
            continuation.finish()
            return stream
        }
        watchers[id] = continuation
        continuation.onTermination = { [weak self] _ in Task { await self?.removeWatcher(id) } }
        return stream
    }

    private func removeWatcher(_ id: UUID) { watchers[id] = nil }

    /// Applies the feed's events; a stream that fails for any reason but a refusal (a lost
    /// database connection in process) is resumed after the last sequence applied.
    private func follow(_ first: TaskChangeStream) async {
        var changes = first
        while !Task.isCancelled {
            do {
                for try await event in changes { try await apply(event) }
                break
            } catch is CancellationError {
                break
            } catch let error as TaskError {
                failure = error
                break
            } catch {
                do {
                    try await Task.sleep(for: .seconds(1))
                    changes = try await session.changes(in: team, after: sequence)
                } catch {
                    failure = error
                    break
                }
            }
        }
        following = nil
        finishWatchers()
    }

    /// Applies one event: a change by re-reading its task (a task gone or hidden leaves the
    /// board), a resync by loading the board again.
    func apply(_ event: TaskFeedEvent) async throws {
        switch event {
        case .resync:
            try await reload()
        case .change(let change) where change.kind == .deleted:
            tasks[change.key.number] = nil
        case .change(let change):
            do {
                let task = try await session.task(change.key)
                if task.version >= tasks[task.key.number]?.version ?? 0 { tasks[task.key.number] = task }
                if let assignee = task.assigneeID, !members.contains(where: { $0.user.id == assignee }) {
                    members = try await session.members(of: team)
                }
            } catch TaskError.notFound {
                tasks[change.key.number] = nil
            }
        }
        sequence = max(sequence ?? 0, event.sequence)
        publish()
    }

    /// Reads the first page and the members again, replacing what the board holds.
    func reload() async throws {
        let page = try await session.listTasks(in: team, TaskQuery(limit: pageSize))
        members = try await session.members(of: team)
        tasks = Dictionary(uniqueKeysWithValues: page.tasks.map { ($0.key.number, $0) })
        isTruncated = page.nextCursor != nil
        publish()
    }

    private func publish() {
        let snapshot = BoardSnapshot(team: team, tasks: tasks.values, members: members, today: clock.today(), isTruncated: isTruncated)
        guard snapshot != current else { return }
        current = snapshot
        for watcher in watchers.values { watcher.yield(snapshot) }
    }

    private func finishWatchers() {
        for watcher in watchers.values { watcher.finish() }
        watchers = [:]
    }
}
