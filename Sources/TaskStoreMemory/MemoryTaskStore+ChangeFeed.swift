import TaskCore

extension MemoryTaskStore: TaskChangeFeed {
    /// Follows the team's log (`ChangeLogFollower`), rung by this store's own mutations; the
    /// doorbell is removed as soon as the stream ends (its follower stops waiting on it).
    public func changes(in team: TeamKey, after: Int64?, access: AccessRequirement) async throws -> TaskChangeStream {
        _ = try state.withLock { try $0.gate(access, team: team, subject: "team \(team)") }
        let doorbell = try await doorbell(of: team)
        return try await ChangeLogFollower.follow(
            team, after: after, doorbell: doorbell.rings,
            read: { [self] position, limit in
                try state.withLock { try $0.changeLog(after: position, limit: limit, access: access, team: team) }
            },
            finish: doorbell.stop)
    }

    /// One read of the log with the team's readers as of the same moment (under the store's lock).
    public func changeLog(in team: TeamKey, after position: Int64, limit: Int, access: AccessRequirement) async throws -> ChangeLogRead {
        try state.withLock { state in
            var read = try state.changeLog(after: position, limit: limit, access: access, team: team)
            let id = try state.gate(access, team: team, subject: "team \(team)").team.id
            read.readers = Set(
                (state.roles[id] ?? [:]).filter { user, role in role >= access.minimumRole && state.users[user]?.isDisabled == false }.keys)
            return read
        }
    }

    /// The team's doorbell, rung by this store's own mutations; `stop` removes it.
    public func doorbell(of team: TeamKey) async throws -> TeamDoorbell {
        let (rings, ringer) = AsyncThrowingStream<Void, any Error>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let (teamID, listener) = try state.withLock { state in
            guard let id = state.teamIDsByKey[team] else { throw TaskError.notFound(what: "team \(team)") }
            state.lastListenerID += 1
            state.doorbells[id, default: [:]][state.lastListenerID] = ringer
            return (id, state.lastListenerID)
        }
        ringer.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.doorbells[teamID]?.removeValue(forKey: listener) }
        }
        return TeamDoorbell(rings: rings, stop: { ringer.finish() })
    }

    /// How many watchers are subscribed, so tests can see that none is left behind.
    public var listenerCount: Int {
        state.withLock { $0.doorbells.values.reduce(0) { $0 + $1.count } }
    }
}
