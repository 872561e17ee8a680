import TaskCore

extension MemoryTaskStore: TaskChangeFeed {
    /// Follows the team's log (`ChangeLogFollower`), rung by this store's own mutations; the
    /// doorbell is removed as soon as the stream ends (its follower stops waiting on it).
    public func changes(in team: TeamKey, after: Int64?, access: AccessRequirement) async throws -> TaskChangeStream {
        let (doorbell, ringer) = AsyncThrowingStream<Void, any Error>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let (teamID, listener) = try state.withLock { state in
            let gate = try state.gate(access, team: team, subject: "team \(team)")
            state.lastListenerID += 1
            state.doorbells[gate.team.id, default: [:]][state.lastListenerID] = ringer
            return (gate.team.id, state.lastListenerID)
        }
        ringer.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.doorbells[teamID]?.removeValue(forKey: listener) }
        }
        return try await ChangeLogFollower.follow(
            team, after: after, doorbell: doorbell,
            read: { [self] position, limit in
                try state.withLock { try $0.changeLog(after: position, limit: limit, access: access, team: team) }
            },
            finish: { ringer.finish() })
    }

    /// How many watchers are subscribed, so tests can see that none is left behind.
    public var listenerCount: Int {
        state.withLock { $0.doorbells.values.reduce(0) { $0 + $1.count } }
    }
}
