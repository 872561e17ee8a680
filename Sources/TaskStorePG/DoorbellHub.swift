import PGStore
import Synchronization
import TaskCore

/// The store's one listening session, shared by every doorbell of the process: each channel
/// is LISTENed once however many watchers it has, and every notification rings each of that
/// channel's watchers (rings coalesce, so a slow watcher never holds the others up). The
/// session opens with the first doorbell and closes with the last (in taskserve the token
/// cache's doorbell keeps it open); when it is lost (a server restart) every doorbell ends with
/// the error and the next one opens a new session.
final class DoorbellHub: Sendable {
    private typealias Ringer = AsyncThrowingStream<Void, any Error>.Continuation

    private struct Session {
        var id: Int
        var listener: Task<PGListener, any Error>
    }

    private struct State {
        var session: Session?
        var lastID = 0
        var ringers: [String: [Int: Ringer]] = [:]
    }

    /// The listening session was closed (only ever at the end of the process).
    struct SessionEnded: Error, CustomStringConvertible {
        var description: String { "the change feed's listening session was closed" }
    }

    private let config: PGConfig
    private let state = Mutex(State())

    /// A hub that listens on a session opened with `config`.
    init(config: PGConfig) {
        self.config = config
    }

    /// The listening session's server process, when it is open (what tests find in
    /// `pg_stat_activity`).
    var backendPID: Int32? {
        get async {
            guard let listener = state.withLock({ $0.session?.listener }) else { return nil }
            return try? await listener.value.backendPID
        }
    }

    /// A doorbell for `channel`: it rings after each notification on it; once this returns, the
    /// channel is listened to. `stop` ends it.
    func doorbell(on channel: String) async throws -> (rings: AsyncThrowingStream<Void, any Error>, stop: @Sendable () async -> Void) {
        do {
            return try await doorbell(on: channel, retrying: true)
        } catch let error as PGError {
            throw PostgresTaskStore.translate(error)
        }
    }

    /// One try; the session it got may have been closed by the last doorbell leaving meanwhile,
    /// and then it tries once more on a new one.
    private func doorbell(
        on channel: String, retrying: Bool
    ) async throws -> (
        rings: AsyncThrowingStream<Void, any Error>, stop: @Sendable () async -> Void
    ) {
        let (session, listener) = try await openSession()
        let (rings, ringer) = AsyncThrowingStream<Void, any Error>.makeStream(bufferingPolicy: .bufferingNewest(1))
        // Registered only on the session that is still the current one: the last doorbell of
        // another channel may have retired it (and begun closing it) since `openSession`, and a
        // ringer left on a retired session would never ring nor end. The session is retired only
        // with no ringers left, so once this one is registered it stays until `stop`.
        let registered = state.withLock { state -> Int? in
            guard state.session?.id == session else { return nil }
            state.lastID += 1
            state.ringers[channel, default: [:]][state.lastID] = ringer
            return state.lastID
        }
        guard let id = registered else { return try await doorbell(on: channel, retrying: retrying) }
        let stop: @Sendable () async -> Void = { [self] in
            let idle = state.withLock { state -> Bool in
                guard state.ringers[channel]?.removeValue(forKey: id) != nil else { return false }
                guard state.ringers[channel]?.isEmpty == true else { return false }
                state.ringers[channel] = nil
                guard state.session?.id == session else { return false }
                // Under the lock: a watcher arriving next asks for LISTEN after this, or opens
                // a new session.
                listener.unlisten(channel)
                guard state.ringers.isEmpty else { return false }
                state.session = nil
                return true
            }
            ringer.finish()
            // The last doorbell gone: no listening session is left behind.
            if idle { await listener.close() }
        }
        do {
            try await listener.listen(channel)
        } catch {
            await stop()
            let replaced = state.withLock { $0.session?.id != session }
            guard retrying, replaced, !listener.isListening else { throw error }
            return try await doorbell(on: channel, retrying: false)
        }
        return (rings, stop)
    }

    /// The open session, or a new one (one at a time: concurrent callers share it).
    private func openSession() async throws -> (id: Int, listener: PGListener) {
        let session = state.withLock { state -> Session in
            if let session = state.session { return session }
            state.lastID += 1
            let config = self.config
            let session = Session(id: state.lastID, listener: Task { try await PGListener.connect(config) })
            state.session = session
            let id = session.id
            Task { [self] in await relay(session: id, session.listener) }
            return session
        }
        do {
            return (session.id, try await session.listener.value)
        } catch {
            state.withLock { state in if state.session?.id == session.id { state.session = nil } }
            throw error
        }
    }

    /// Rings the watchers of each notification's channel until the session ends, then ends
    /// every doorbell with the session's error.
    private func relay(session: Int, _ listener: Task<PGListener, any Error>) async {
        guard let listener = try? await listener.value else { return }
        var failure: any Error = SessionEnded()
        do {
            for try await notification in listener.notifications {
                state.withLock { state in
                    if let ringers = state.ringers[notification.channel] { for ringer in ringers.values { ringer.yield() } }
                }
            }
        } catch let error as PGError {
            failure = PostgresTaskStore.translate(error)
        } catch {
            failure = error
        }
        let orphans = state.withLock { state -> [Ringer] in
            guard state.session?.id == session else { return [] }
            state.session = nil
            let orphans = state.ringers.values.flatMap(\.values)
            state.ringers = [:]
            return orphans
        }
        for ringer in orphans { ringer.finish(throwing: failure) }
    }
}
