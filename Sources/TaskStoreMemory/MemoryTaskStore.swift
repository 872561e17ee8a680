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

    /// Runs a write on the state under the lock, unless it is made by a run whose idempotency
    /// claim was taken over (`refuseWriteOfStaleIdempotentRun`): every write that notes its
    /// effect on the running request's key goes through here.
    func writing<Result>(_ body: (inout MemoryState) throws -> Result) throws -> Result {
        try state.withLock { state in
            try state.refuseWriteOfStaleIdempotentRun()
            return try body(&state)
        }
    }

    /// Runs `body` on the state and logs the changes it made in the team it names, under the
    /// lock, so the log's order is the order of the mutations. Each change is made from the
    /// sequence it is logged at.
    func mutate<Result>(_ body: (inout MemoryState) throws -> (Result, team: TeamID?, [(Int64) -> TaskChange])) throws -> Result {
        try writing { state in
            let (result, team, changes) = try body(&state)
            if let team {
                state.log(changes, in: team)
                state.noteIdempotentEffect()
            }
            return result
        }
    }
}
