import Synchronization
import TaskCore

/// The whole TaskCore store in memory, safe to share between tasks: for tests, demos and
/// the contract suite's reference. Every call is one critical section over one state value.
public final class MemoryTaskStore: Sendable {
    let state = Mutex(MemoryState())

    /// An empty store.
    public init() {}

    /// Runs `body` on the state, then delivers the changes it reports to the team's subscribers.
    func mutate<Result>(_ body: (inout MemoryState) throws -> (Result, [TaskChange])) throws -> Result {
        let (result, changes, listeners) = try state.withLock { state in
            let (result, changes) = try body(&state)
            let teams = Set(changes.compactMap { state.teamIDsByKey[$0.key.team] })
            return (result, changes, teams.flatMap { state.subscribers[$0]?.values.map { $0 } ?? [] })
        }
        for change in changes {
            for listener in listeners { listener.yield(change) }
        }
        return result
    }
}
