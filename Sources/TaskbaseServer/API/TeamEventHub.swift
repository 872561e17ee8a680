import Synchronization
import TaskCore
import TaskbaseWire

/// What a subscriber of a team's hub receives, in order.
enum HubDelivery: Sendable {
    /// First, once: the hub hands this subscriber every event after `sequence` of the log of the
    /// team with id `team` (the key's team when the hub started); what comes before, the
    /// subscriber reads from the log by itself.
    case joined(after: Int64, team: TeamID)
    /// One event, with its Server-Sent Events text, built once for every subscriber.
    case event(sequence: Int64, text: String)
}

/// What one team's hub has done, for tests and operators: `reads` counts its reads of the log
/// (one per ring, whatever the number of subscribers), `texts` the events it described.
public struct TeamEventHubStatistics: Sendable, Equatable {
    /// Reads of the team's change log (the start read included).
    public var reads: Int
    /// Events described, encoded and handed out.
    public var texts: Int
    /// Subscribers now.
    public var subscribers: Int
    /// The hub has made its first read and hands out events.
    public var started: Bool
}

/// The process's event fan-out: one hub per team with subscribers, each listening on the
/// team's doorbell once and reading the log once per ring for all of them. A hub starts with
/// its team's first subscriber and stops (unlistens) when the last one leaves.
public final class TeamEventHubs: Sendable {
    private let service: TaskService
    private let hubs = Mutex<[TeamKey: TeamEventHub]>([:])

    /// Hubs over `service`.
    init(service: TaskService) {
        self.service = service
    }

    /// What the hub of `team` has done, or nil when no hub runs for it.
    public func statistics(of team: TeamKey) -> TeamEventHubStatistics? {
        hubs.withLock { $0[team] }?.statistics
    }

    /// How many hubs run (teams with at least one subscriber).
    public var count: Int { hubs.withLock { $0.count } }

    /// Adds a subscriber acting as `user` (whose read access the caller has just checked) to
    /// the hub of `team`, starting the hub if it is the first. The stream's first element is
    /// `.joined`; it ends when the subscriber may no longer read the team, falls a whole queue
    /// behind, or the hub fails. `leave` must be called once the subscriber is done.
    func subscribe(_ team: TeamKey, user: UserID) -> (deliveries: AsyncStream<HubDelivery>, leave: @Sendable () -> Void) {
        let (stream, continuation) = AsyncStream<HubDelivery>.makeStream(bufferingPolicy: .bufferingOldest(TeamEventHub.queueLimit))
        let (hub, id, isNew) = hubs.withLock { hubs in
            let existing = hubs[team]
            let hub = existing ?? TeamEventHub(team: team, service: service, hubs: self)
            hubs[team] = hub
            return (hub, hub.add(user, continuation), existing == nil)
        }
        if isNew { hub.start() }
        return (stream, { [self] in leave(hub, id) })
    }

    /// Removes subscriber `id`; the last one leaving stops the hub.
    private func leave(_ hub: TeamEventHub, _ id: Int) {
        let idle = hubs.withLock { hubs -> Bool in
            guard hub.remove(id) else { return false }
            if hubs[hub.team] === hub { hubs[hub.team] = nil }
            return true
        }
        if idle { hub.stop() }
    }

    /// Takes a failed hub out, ending every subscriber's stream (the clients reconnect with
    /// `Last-Event-ID` and lose nothing).
    fileprivate func retire(_ hub: TeamEventHub) {
        hubs.withLock { hubs in
            hub.endAll()
            if hubs[hub.team] === hub { hubs[hub.team] = nil }
        }
    }
}

/// One team's fan-out. On each ring of the team's doorbell it reads the log once, as one of
/// its subscribers, with the team's readers from the same statement (`ChangeLogRead.readers`);
/// a subscriber whose user is not among them is cut off, and if the subscriber it read as is
/// refused, that one is cut off and the read is made again as another, so nothing is handed to
/// anyone the read did not vouch for. Each event is described (the task's title as the reader
/// sees it) and encoded once, and the same text goes to every subscriber's queue.
final class TeamEventHub: Sendable {
    /// The most events queued for one subscriber; a subscriber that far behind is cut off.
    static let queueLimit = 1_024

    private struct Subscriber {
        var user: UserID
        var queue: AsyncStream<HubDelivery>.Continuation
    }

    private struct State {
        var subscribers: [Int: Subscriber] = [:]
        var lastID = 0
        /// The last sequence handed out; nil until the hub has started.
        var position: Int64?
        /// The id of the team whose log the hub reads, once started.
        var teamID: TeamID?
        var stopped = false
        var reads = 0
        var texts = 0
        var runner: Task<Void, Never>?
    }

    let team: TeamKey
    private let service: TaskService
    private let hubs: TeamEventHubs
    private let state = Mutex(State())

    fileprivate init(team: TeamKey, service: TaskService, hubs: TeamEventHubs) {
        self.team = team
        self.service = service
        self.hubs = hubs
    }

    var statistics: TeamEventHubStatistics {
        state.withLock { TeamEventHubStatistics(reads: $0.reads, texts: $0.texts, subscribers: $0.subscribers.count, started: $0.position != nil) }
    }

    /// Registers a subscriber; once the hub has started it is told at once where it joined.
    fileprivate func add(_ user: UserID, _ queue: AsyncStream<HubDelivery>.Continuation) -> Int {
        state.withLock { state in
            state.lastID += 1
            state.subscribers[state.lastID] = Subscriber(user: user, queue: queue)
            if let position = state.position, let team = state.teamID { queue.yield(.joined(after: position, team: team)) }
            return state.lastID
        }
    }

    /// Removes a subscriber; true when it was the last (the hub is then stopped for good).
    fileprivate func remove(_ id: Int) -> Bool {
        state.withLock { state in
            state.subscribers.removeValue(forKey: id)?.queue.finish()
            guard state.subscribers.isEmpty, !state.stopped else { return false }
            state.stopped = true
            return true
        }
    }

    fileprivate func start() {
        let runner = Task { await run() }
        let stopped = state.withLock { state in
            state.runner = runner
            return state.stopped
        }
        if stopped { runner.cancel() }
    }

    fileprivate func stop() {
        state.withLock { $0.runner }?.cancel()
    }

    fileprivate func endAll() {
        state.withLock { state in
            state.stopped = true
            for subscriber in state.subscribers.values { subscriber.queue.finish() }
            state.subscribers = [:]
        }
    }

    private func run() async {
        var doorbell: TeamDoorbell?
        do {
            let (bell, _) = try await asSomeReader { [service, team] user in try await service.doorbell(of: team, as: .id(user)) }
            doorbell = bell
            let start = try await read(after: Int64.max, limit: 0).page
            var position = start.lastSequence
            let teamID = start.teamID
            var users = try await members()
            state.withLock { state in
                state.position = position
                state.teamID = teamID
                for subscriber in state.subscribers.values { subscriber.queue.yield(.joined(after: position, team: teamID)) }
            }
            var rings = bell.rings.paced(ChangeLogFollower.ringPace).makeAsyncIterator()
            while try await rings.next() != nil {
                var full = true, membersRead = false
                while full {
                    let (page, reader) = try await read(after: position, limit: ChangeLogFollower.pageSize)
                    // The team was deleted and another made under its key, whose readers may
                    // include some of these subscribers: their streams end (they watched the
                    // other), and a reconnect with the last event's id is refused.
                    guard page.teamID == teamID else { throw CancellationError() }
                    full = page.events.count == ChangeLogFollower.pageSize
                    var texts: [(sequence: Int64, text: String)] = []
                    let actors = page.events.compactMap { event -> UserID? in
                        if case .change(let change) = event { change.actorID } else { nil }
                    }
                    if !membersRead, !page.events.isEmpty {
                        // A ring may be a membership change (with the removed member's
                        // unassignments): the members are read again once the ring's first page
                        // is, so that one who left in a change the page holds is `#id`, as to a
                        // stream that catches up from the log by itself.
                        users = try await members()
                        membersRead = true
                    } else if actors.contains(where: { users.users[$0] == nil }) {
                        // Someone the directory does not hold: a member who joined since, or a
                        // former member (#id).
                        users = try await members()
                    }
                    for event in ChangeLogFollower.resumed(from: position, page) {
                        texts.append((event.sequence, try await EventText.of(event, team: teamID, users: &users, service: service, as: .id(reader))))
                    }
                    hand(texts, to: page.readers ?? [])
                    position = texts.last?.sequence ?? position
                }
            }
        } catch {
            // Cancelled (the last subscriber left), every subscriber refused, or the listening
            // session lost: the streams end and their clients reconnect.
        }
        await doorbell?.stop()
        hubs.retire(self)
    }

    /// The team's members, read as some subscriber: the directory every subscriber's text
    /// names people from, the same for every reader (nobody else is looked up).
    private func members() async throws -> UserDirectory {
        var (directory, _) = try await asSomeReader { [service, team] user in try await UserDirectory.of(team, service: service, as: .id(user)) }
        directory.looksUpOthers = false
        return directory
    }

    /// Runs `body` as the longest-standing subscriber; one that is refused (no longer a reader
    /// of the team) is cut off and the next one is tried. Throws once none is left.
    private func asSomeReader<T>(_ body: (UserID) async throws -> T) async throws -> (T, UserID) {
        while true {
            let user = state.withLock { state in state.subscribers.min { $0.key < $1.key }?.value.user }
            guard let user else { throw CancellationError() }
            do {
                return (try await body(user), user)
            } catch let error as TaskError where error.refusesReader {
                cutOff { $0 == user }
            }
        }
    }

    /// One read of the log after `position`, as some subscriber, counted.
    private func read(after position: Int64, limit: Int) async throws -> (page: ChangeLogRead, reader: UserID) {
        let (page, reader) = try await asSomeReader { [service, team] user in
            try await service.changeLog(in: team, after: position, limit: limit, as: .id(user))
        }
        state.withLock { $0.reads += 1 }
        return (page, reader)
    }

    /// Ends the streams of the subscribers whose user `matches`.
    private func cutOff(_ matches: (UserID) -> Bool) {
        state.withLock { state in
            for (id, subscriber) in state.subscribers where matches(subscriber.user) {
                subscriber.queue.finish()
                state.subscribers[id] = nil
            }
        }
    }

    /// Hands `texts` to every subscriber among `readers`, cutting off the others and any whose
    /// queue is full; the hub's position moves past them in the same step, so a subscriber joins
    /// either before these events (and gets them) or after (and reads them from the log).
    private func hand(_ texts: [(sequence: Int64, text: String)], to readers: Set<UserID>) {
        state.withLock { state in
            for (id, subscriber) in state.subscribers {
                var keep = readers.contains(subscriber.user)
                for (sequence, text) in texts where keep {
                    if case .dropped = subscriber.queue.yield(.event(sequence: sequence, text: text)) { keep = false }
                }
                if !keep {
                    subscriber.queue.finish()
                    state.subscribers[id] = nil
                }
            }
            state.texts += texts.count
            if let last = texts.last { state.position = last.sequence }
        }
    }
}

/// The Server-Sent Events text of one event: `id`, `event` and one `data:` line.
enum EventText {
    /// The text of `event` of the log of the team with id `team`, described as `actor` sees it
    /// (`ChangeDocument.describing`).
    static func of(
        _ event: TaskFeedEvent, team: TeamID, users: inout UserDirectory, service: TaskService, as actor: UserRef
    ) async throws -> String {
        switch event {
        case .change(let change):
            let document = try await ChangeDocument.describing(change, users: &users, service: service, as: actor)
            let json = String(decoding: try ServerJSON.encoder.encode(document), as: UTF8.self)
            return "id: \(EventID(team: team, sequence: change.sequence))\nevent: change\ndata: \(json)\n\n"
        case .resync(let through):
            return "id: \(EventID(team: team, sequence: through))\nevent: resync\ndata: {\"through\": \(through)}\n\n"
        }
    }
}

/// An event's id, `<team id>:<sequence>`: the sequence alone would let a client that comes back
/// after its team was deleted and another made under the key resume in the other's log, whose
/// sequences start again from 1, and take its events for the old team's.
struct EventID: CustomStringConvertible, Equatable {
    /// The team whose log the event is in; nil in an id sent as a bare sequence (`?after=`, or
    /// a server before team-qualified ids).
    var team: TeamID?
    var sequence: Int64

    var description: String { team.map { "\($0.rawValue):\(sequence)" } ?? String(sequence) }

    /// `text` read as an id this server sends (or a bare sequence); nil when it is neither.
    init?(_ text: some StringProtocol) {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard let sequence = Int64(parts[parts.count - 1]), sequence >= 0 else { return nil }
        if parts.count == 2 {
            guard let team = Int64(parts[0]), team > 0 else { return nil }
            self.team = TeamID(team)
        }
        self.sequence = sequence
    }

    init(team: TeamID, sequence: Int64) {
        self.team = team
        self.sequence = sequence
    }
}

extension TaskError {
    /// The error says the actor may not read the team (removed, disabled, or unknown: all read as not found or not allowed), rather
    /// than that the read failed.
    var refusesReader: Bool {
        switch self {
        case .notFound, .permissionDenied: true
        default: false
        }
    }
}
