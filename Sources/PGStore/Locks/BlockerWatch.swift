import Synchronization

/// Watches, from a second connection, whether a session waits on a lock, and remembers who
/// blocked it: once a lock timeout has fired the blocker can no longer be asked for.
public final class BlockerWatch: Sendable {
    private let state = Mutex<(stopped: Bool, blocker: LockBlocker?)>((false, nil))

    /// Runs `body` while polling, every `interval`, for the session blocking `pid`.
    /// Returns `body`'s outcome and the last blocker seen during it.
    public static func watching<T>(
        pid: Int32, on connection: PGConnection, interval: Duration, _ body: () async throws -> T
    ) async -> (Result<T, any Error>, LockBlocker?) {
        let watch = BlockerWatch()
        let poller = Task {
            while !watch.state.withLock({ $0.stopped }) {
                try? await Task.sleep(for: interval)
                guard !watch.state.withLock({ $0.stopped }) else { break }
                if let blocker = try? await LockBlocker.find(blocking: pid, on: connection) {
                    watch.state.withLock { $0.blocker = blocker }
                }
            }
        }
        let result: Result<T, any Error>
        do {
            result = .success(try await body())
        } catch {
            result = .failure(error)
        }
        watch.state.withLock { $0.stopped = true }
        await poller.value
        return (result, watch.state.withLock { $0.blocker })
    }
}
