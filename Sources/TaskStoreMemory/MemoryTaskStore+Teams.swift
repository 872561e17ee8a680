import Foundation
import TaskCore

extension MemoryTaskStore: TeamRepository {
    /// Creates the team and its first owner in one step.
    public func createTeam(key: TeamKey, name: String, owner: UserID, at time: Date) async throws -> Team {
        try writing { state in
            guard state.teamIDsByKey[key] == nil else { throw TaskError.alreadyExists(what: "team \(key)") }
            let team = Team(id: state.nextID(), key: key, name: name, createdAt: time)
            state.teams[team.id] = team
            state.teamIDsByKey[key] = team.id
            state.roles[team.id] = [owner: .owner]
            state.noteIdempotentEffect()
            return team
        }
    }

    /// Gathers the facts and lets `AccessRequirement.verify` judge them.
    public func teamAccess(_ key: TeamKey, access: AccessRequirement) async throws -> TeamAccess {
        try state.withLock { try $0.gate(access, team: key, subject: "team \(key)") }
    }

    /// The user's teams, by key.
    public func teams(of user: UserID) async throws -> [TeamMembership] {
        state.withLock { state in
            state.roles.compactMap { teamID, roles in
                guard let role = roles[user], let team = state.teams[teamID] else { return nil }
                return TeamMembership(team: team, role: role)
            }.sorted { $0.team.key < $1.team.key }
        }
    }

    /// The members, by email.
    public func members(of team: TeamID, actor: UserID) async throws -> [Member] {
        state.withLock { state in
            (state.roles[team] ?? [:]).compactMap { userID, role in
                state.users[userID].map { Member(user: $0, role: role) }
            }.sorted { $0.user.email < $1.user.email }
        }
    }

    /// Sets or removes one membership, keeping at least one enabled owner; removal unassigns
    /// the member's tasks, each as an edit by `actor`, and says how many.
    @discardableResult
    public func setRole(
        _ role: Role?, of member: User, in team: TeamID, actor: UserID, at time: Date, condition: MembershipCondition?
    ) async throws -> Int {
        let unassigning = try TaskChanges(assignee: .set(nil)), user = member.id
        return try writing { state in
            var roles = state.roles[team] ?? [:]
            let key = state.teams[team].map { "\($0.key)" } ?? "#\(team)"
            // Judged again under the lock, as the Postgres store does: the actor may have been
            // demoted since the service judged the change.
            guard let actorRole = roles[actor] else { throw TaskError.notFound(what: "team \(key)") }
            try MembershipRule.verify(
                changing: roles[user], to: role, leaving: user == actor, actor: state.users[actor]?.email ?? "user #\(actor)", actorRole: actorRole,
                team: key)
            let current = roles[user].map { Member(user: member, role: $0) }
            if let condition, !condition.holds(current) { throw MembershipConditionFailed(current: current) }
            if role == nil, roles[user] == nil {
                // Gone already (removed at the same time by someone else): nothing is done.
                throw TaskError.notFound(what: "member \(member.email) of team \(key)")
            }
            roles[user] = role
            if let key = state.teams[team]?.key {
                try OwnerRule.verify(
                    enabledOwnersAfterChange: state.enabledOwners(in: roles), team: key, field: OwnerRule.field(removing: role == nil))
            }
            let assigned = role == nil ? state.tasks(of: team).filter({ $0.assigneeID == user }).sorted(by: { $0.key.number < $1.key.number }) : []
            for old in assigned {
                let new = old.applying(unassigning, assigneeID: nil, by: actor, at: time)
                state.save(new, replacing: old, kind: .updated)
                state.log([{ TaskChange(.updated, new, sequence: $0) }], in: team)
            }
            state.roles[team] = roles
            state.noteIdempotentEffect()
            state.ring(team)
            return assigned.count
        }
    }

    /// Changes the team's name; its key stays.
    public func renameTeam(_ team: TeamID, to name: String, actor: UserID) async throws -> Team {
        try writing { state in
            guard var renamed = state.teams[team] else { throw TaskError.notFound(what: "team #\(team)") }
            renamed.name = name
            state.teams[team] = renamed
            state.noteIdempotentEffect()
            return renamed
        }
    }

    /// Drops the team's tasks, history, log and memberships; its watchers' next read is refused.
    public func deleteTeam(_ team: TeamID, actor: UserID) async throws {
        try writing { state in
            for task in state.tasks(of: team) { state.remove(task) }
            if let key = state.teams[team]?.key { state.teamIDsByKey[key] = nil }
            state.teams[team] = nil
            state.roles[team] = nil
            state.lastTaskNumber[team] = nil
            state.taskKeysByExternalID[team] = nil
            state.changeLog[team] = nil
            state.lastChange[team] = nil
            state.history[team] = nil
            state.noteIdempotentEffect()
            state.ring(team)
        }
    }
}
