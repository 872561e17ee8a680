import CLibPQ
import Synchronization

/// One session LISTENing on any number of channels, changed while it listens: what a process
/// needs to fan notifications out to many consumers over a single server connection (instead
/// of one listening connection per consumer).
///
/// ```swift
/// let listener = try await PGListener.connect(config)
/// try await listener.listen("taskbase.team.CORE")      // returns once LISTEN has run
/// for try await notification in listener.notifications { print(notification.channel) }
/// ```
///
/// One task of its own owns the connection: it runs the LISTEN and UNLISTEN statements the
/// wanted set calls for, then waits for the socket, so `listen` and `unlisten` may be called
/// from any task at any time. `notifications` ends normally after `close()`, and throws when
/// the connection is lost (a server restart): make a new listener then.
public final class PGListener: Sendable {
    private struct State {
        /// The channels callers want.
        var wanted: Set<String> = []
        /// The channels the session has run LISTEN for.
        var listening: Set<String> = []
        /// Callers of `listen` waiting for their LISTEN to have run.
        var waiters: [(channel: String, continuation: CheckedContinuation<Void, any Error>)] = []
        /// The pump's current wait for the socket, cancelled to make it look at `wanted` again.
        var wait: Task<SocketReadiness, Never>?
        /// Set by `close()` or by a failure; nothing is waited for afterwards.
        var ended: (any Error)??
    }

    private let connection: PGConnection
    private let state = Mutex(State())
    private let continuation: AsyncThrowingStream<PGNotification, any Error>.Continuation
    private let pump = Mutex<Task<Void, Never>?>(nil)
    /// Every notification on a channel listened to, in the order the server sent them.
    public let notifications: AsyncThrowingStream<PGNotification, any Error>

    private init(connection: PGConnection) {
        self.connection = connection
        (notifications, continuation) = AsyncThrowingStream.makeStream()
    }

    /// Opens a session of its own for listening.
    public static func connect(_ config: PGConfig) async throws -> PGListener {
        let connection = try await PGConnection.connect(config)
        try await connection.beginExclusiveUse()
        let listener = PGListener(connection: connection)
        listener.pump.withLock { $0 = Task { await listener.run() } }
        return listener
    }

    /// The server process listening (`pg_stat_activity.pid`).
    public var backendPID: Int32 { connection.backendPID }

    /// Whether the session is still open (neither closed nor lost).
    public var isListening: Bool { state.withLock { $0.ended == nil } }

    /// The channels the session listens on now.
    public var channels: Set<String> { state.withLock { $0.listening } }

    /// Starts listening on `channel` (a quoted identifier, so case is kept) and returns once
    /// the server runs LISTEN for it: a NOTIFY committed after that is delivered.
    public func listen(_ channel: String) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let failure: (any Error)? = state.withLock { state in
                if let ended = state.ended { return ended ?? PGError.client("the listener is closed") }
                state.wanted.insert(channel)
                state.waiters.append((channel, continuation))
                state.wait?.cancel()
                return nil
            }
            if let failure { continuation.resume(throwing: failure) }
        }
    }

    /// Stops listening on `channel` (soon; notifications already on their way may still come).
    public func unlisten(_ channel: String) {
        state.withLock { state in
            state.wanted.remove(channel)
            state.wait?.cancel()
        }
    }

    /// Ends the session; `notifications` then finishes.
    public func close() async {
        state.withLock { state in
            if state.ended == nil { state.ended = .some(nil) }
            state.wait?.cancel()
        }
        await pump.withLock { $0 }?.value
    }

    // MARK: - The pump

    private func run() async {
        do {
            while try await step() {}
            finish(with: nil)
        } catch {
            finish(with: error)
        }
        connection.endExclusiveUse()
        await connection.close()
    }

    /// One round: LISTEN/UNLISTEN what changed, deliver what arrived, wait for the socket or a
    /// change. False once closed.
    private func step() async throws -> Bool {
        let (add, drop) = state.withLock { ($0.wanted.subtracting($0.listening), $0.listening.subtracting($0.wanted)) }
        for channel in drop {
            _ = try await connection.run(PGQuery(unsafeSQL: "UNLISTEN \(PGQuery.quoteIdentifier(channel))"), timeout: nil)
            state.withLock { _ = $0.listening.remove(channel) }
        }
        for channel in add {
            _ = try await connection.run(PGQuery(unsafeSQL: "LISTEN \(PGQuery.quoteIdentifier(channel))"), timeout: nil)
            state.withLock { _ = $0.listening.insert(channel) }
        }
        let ready = state.withLock { state in
            var ready: [CheckedContinuation<Void, any Error>] = []
            state.waiters.removeAll { waiter in
                guard state.listening.contains(waiter.channel) || !state.wanted.contains(waiter.channel) else { return false }
                ready.append(waiter.continuation)
                return true
            }
            return ready
        }
        for continuation in ready { continuation.resume() }
        deliver()

        let fd = PQsocket(connection.handle)
        let wait: Task<SocketReadiness, Never>? = state.withLock { state in
            if state.ended != nil { return nil }
            if state.wanted != state.listening { return nil }
            let wait = Task { await IOReactor.shared.wait(fd: fd, for: .read, deadline: nil, endOnCancel: true) }
            state.wait = wait
            return wait
        }
        guard let wait else { return state.withLock { $0.ended == nil } }
        let readiness = await wait.value
        state.withLock { $0.wait = nil }
        if readiness == .cancelled { return state.withLock { $0.ended == nil } }
        if PQconsumeInput(connection.handle) == 0 { throw connection.connectionError("lost the connection while listening") }
        deliver()
        return true
    }

    private func deliver() {
        connection.collectNotifications()
        guard !connection.pendingNotifications.isEmpty else { return }
        let listening = state.withLock { $0.listening }
        for notification in connection.pendingNotifications where listening.contains(notification.channel) {
            continuation.yield(notification)
        }
        connection.pendingNotifications.removeAll()
    }

    private func finish(with error: (any Error)?) {
        let waiters = state.withLock { state in
            if state.ended == nil || error != nil { state.ended = .some(error) }
            let waiters = state.waiters
            state.waiters = []
            return waiters
        }
        let failure = error ?? PGError.client("the listener is closed")
        for waiter in waiters { waiter.continuation.resume(throwing: failure) }
        continuation.finish(throwing: error)
    }
}
