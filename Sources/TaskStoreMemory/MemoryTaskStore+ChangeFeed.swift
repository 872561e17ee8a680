import TaskCore

extension MemoryTaskStore: TaskChangeFeed {
    /// How many undelivered changes a slow listener may fall behind before the oldest are dropped.
    public static let feedBufferSize = 10_000

    /// Registers a listener fed by this store's own mutations; it is removed when the stream ends.
    public func changes(in team: TeamKey, access: AccessRequirement) async throws -> TaskChangeStream {
        let (stream, continuation) = TaskChangeStream.makeStream(bufferingPolicy: .bufferingNewest(Self.feedBufferSize))
        let (teamID, listener) = try state.withLock { state in
            let gate = try state.gate(access, team: team, subject: "team \(team)")
            state.lastListenerID += 1
            let listener = state.lastListenerID
            state.subscribers[gate.team.id, default: [:]][listener] = continuation
            return (gate.team.id, listener)
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.subscribers[teamID]?.removeValue(forKey: listener) }
        }
        return stream
    }

    /// How many listeners are subscribed, so tests can see that none is left behind.
    public var listenerCount: Int {
        state.withLock { $0.subscribers.values.reduce(0) { $0 + $1.count } }
    }
}
