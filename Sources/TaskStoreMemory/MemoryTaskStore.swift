import Synchronization
import TaskCore

/// The whole TaskCore store in memory, safe to share between tasks: for tests, demos and
/// the contract suite's reference. Every call is one critical section over one state value.
public final class MemoryTaskStore: Sendable {
    let state = Mutex(MemoryState())

    /// An empty store whose change logs keep at most `changeLogLimit` entries per team.
    public init(changeLogLimit: Int = .max) {
        state.withLock { $0.changeLogLimit = changeLogLimit }
    }

    /// A store holding `state` (a read snapshot's copy).
    init(state: MemoryState) {
        self.state.withLock { $0 = state }
    }

    /// Runs `body` on the state and logs the changes it made in the team it names, under the
    /// lock, so the log's order is the order of the mutations. Each change is made from the
    /// sequence it is logged at.
    func mutate<Result>(_ body: (inout MemoryState) throws -> (Result, team: TeamID?, [(Int64) -> TaskChange])) throws -> Result {
        try state.withLock { state in
            let (result, team, changes) = try body(&state)
            if let team {
                state.log(changes, in: team)
                state.noteIdempotentEffect()
            }
            return result
        }
    }
}
