import Synchronization
import TaskCore

/// The whole TaskCore store in memory, safe to share between tasks: for tests, demos and
/// the contract suite's reference. Every call is one critical section over one state value.
public final class MemoryTaskStore: Sendable {
    let state = Mutex(MemoryState())

    /// An empty store.
    public init() {}

    /// Runs `body` on the state and delivers the changes it reports to the team's listeners
    /// before the lock is released, so every listener sees changes in commit order.
    func mutate<Result>(_ body: (inout MemoryState) throws -> (Result, [TaskChange])) throws -> Result {
        try state.withLock { state in
            let (result, changes) = try body(&state)
            for change in changes {
                guard let team = state.teamIDsByKey[change.key.team] else { continue }
                for listener in (state.subscribers[team] ?? [:]).values { listener.yield(change) }
            }
            return result
        }
    }
}
