/// Lets callers run one at a time, in the order they came: an async mutex for work that
/// suspends (a connection lent to one caller at a time, a log only one test may read). `run`
/// takes the turn and passes it on, on every path.
public actor OneAtATime {
    private var taken = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    public init() {}

    /// Waits for the turn.
    private func take() async {
        guard taken else {
            taken = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Gives the turn to the next caller in line.
    private func pass() {
        if waiting.isEmpty { taken = false } else { waiting.removeFirst().resume() }
    }

    /// Runs `body` in its turn, and passes the turn on however `body` ends. It runs in the
    /// caller's context, not the actor's: only the turn is the actor's.
    public nonisolated func run<T>(_ body: () async throws -> T) async throws -> T {
        await take()
        do {
            let value = try await body()
            await pass()
            return value
        } catch {
            await pass()
            throw error
        }
    }
}
