import Foundation
import PGStore
import TaskCore

extension PostgresTaskStore: TeamRepository {
    public func createTeam(key: TeamKey, name: String, owner: UserID, at time: Date) async throws -> Team {
        // The team, its first owner and its counter come from one SECURITY DEFINER function
        // (migration 0008): the runtime role cannot insert teams, and no policy lets a
        // creator who is not yet a member see or join their team.
        try await transaction(as: .id(owner)) { tx in
            let created = try await tx.query("SELECT public.taskbase_create_team(\(key.rawValue), \(name), \(time)) AS id")
            let id = try created[0].decode(Int64.self, "id")
            let rows = try await tx.query("SELECT \(unsafeSQL: Self.teamColumns) FROM teams tm WHERE tm.id = \(id)")
            return try Self.team(in: rows[0])!
        }
    }

    /// The facts for `access` in team `key`: the actor, the team (when visible) and the role.
    static func teamFacts(_ key: TeamKey, _ access: AccessRequirement) -> PGQuery {
        return """
            SELECT \(unsafeSQL: userColumns), \(unsafeSQL: teamColumns), m.role
              FROM \(Self.accessFactsFrom(access.actor, team: key))
            """
    }

    public func teamAccess(_ key: TeamKey, access: AccessRequirement) async throws -> TeamAccess {
        let row = try await statement(as: access.actor, Self.teamFacts(key, access))[0]
        let role = try Self.role(in: row)
        let actor = try access.verify(AccessFacts(actor: Self.user(in: row), role: role), subject: "team \(key)")
        guard let team = try Self.team(in: row), let role else { throw TaskError.notFound(what: "team \(key)") }
        return TeamAccess(team: team, actor: actor, role: role)
    }

    public func teams(of user: UserID) async throws -> [TeamMembership] {
        try await transaction(as: .id(user)) { tx in
            try await tx.query(
                """
                SELECT \(unsafeSQL: Self.teamColumns), m.role
                  FROM memberships m JOIN teams tm ON tm.id = m.team_id
                 WHERE m.user_id = \(user.rawValue)
                 ORDER BY tm.key COLLATE "C"
                """
            ).map { row in TeamMembership(team: try Self.team(in: row)!, role: try Self.role(in: row)!) }
        }
    }

    public func members(of team: TeamID, actor: UserID) async throws -> [Member] {
        try await transaction(as: .id(actor)) { tx in
            try await tx.query(
                """
                SELECT \(unsafeSQL: Self.userColumns), m.role
                  FROM memberships m JOIN users u ON u.id = m.user_id
                 WHERE m.team_id = \(team.rawValue)
                 ORDER BY u.email COLLATE "C"
                """
            ).map { row in Member(user: try Self.user(in: row)!, role: try Self.role(in: row)!) }
        }
    }

    @discardableResult
    public func setRole(
        _ role: Role?, of member: User, in team: TeamID, actor: UserID, at time: Date, condition: MembershipCondition?
    ) async throws -> Int {
        do {
            return try await changeMembership(to: role, of: member, in: team, actor: actor, at: time, condition: condition)
        } catch TaskError.validation(OwnerRule.field(removing: false), let reason) where role == nil {
            // The owner trigger (0008) refuses a removal as it does a role change, and
            // `translate` words both alike: a removal's refusal names the user taken out.
            throw TaskError.validation(field: OwnerRule.field(removing: true), reason: reason)
        }
    }

    /// The change, and how many tasks a removal unassigned.
    private func changeMembership(
        to role: Role?, of member: User, in team: TeamID, actor: UserID, at time: Date, condition: MembershipCondition?
    ) async throws -> Int {
        let user = member.id
        // Leaving: `condition` is the service's to judge, on the membership it read just before.
        // What it can ask of one's own membership (that it exists, or not) no other change
        // makes true meanwhile; only `If-None-Match` naming a role's tag may miss a role changed
        // in between, and then the member still leaves, as they asked (docs/api.md).
        if role == nil, user == actor {
            // Leaving: any member may, though row security lets only admins delete memberships
            // (and a viewer may not lock the counter, nor write tasks, nor see the team's tasks
            // once out): migration 0038's function unassigns (0026) and removes the actor's own
            // membership under the lock, saying how many it unassigned, and the owner trigger
            // still judges it.
            return try await transaction(as: .id(actor)) { tx in
                let left = try await tx.query("SELECT taskbase_leave_team_unassigning(\(team.rawValue), \(time)) AS unassigned")
                guard let unassigned = try left[0].decode(Int64?.self, "unassigned") else {
                    throw TaskError.notFound(what: "member \(member.email) of team #\(team)")
                }
                return Int(unassigned)
            }
        }
        return try await transaction(as: .id(actor)) { tx in
            // The team's counter lock serializes membership changes with the owner trigger of
            // migration 0008, which refuses (as `OwnerRule` words it) a change that leaves
            // the team no enabled owner; it runs as the schema's owner, so it counts owners
            // the actor may no longer see (one who just left). Admins may take the lock: they
            // write tasks too.
            let locked = try await tx.query(
                "SELECT tm.key FROM teams tm JOIN task_counters c ON c.team_id = tm.id WHERE tm.id = \(team.rawValue) FOR UPDATE OF c")
            guard let keyText = try locked.first?.decode(String.self, "key") else { throw TaskError.notFound(what: "team #\(team)") }
            let current = try await Self.verifyStillMayChange(member, to: role, in: keyText, team: team, actor: actor, tx)
            // Judged under the lock: no change since can make it true or false.
            let membership = current.map { Member(user: member, role: $0) }
            if let condition, !condition.holds(membership) { throw MembershipConditionFailed(current: membership) }
            var unassigned: Int64 = 0
            if let role {
                // One new to the actor is added by the address they named (0025): the row
                // policy takes a new member they do not see only as `taskbase.member_email`'s,
                // set in the same statement, before the row is checked.
                try await tx.execute(
                    """
                    WITH named AS (SELECT set_config('taskbase.member_email', \(UserFields.normalizedEmailKey(member.email)), true))
                    INSERT INTO memberships (team_id, user_id, role) SELECT \(team.rawValue), \(user.rawValue), \(role.rawValue) FROM named
                    ON CONFLICT (team_id, user_id) DO UPDATE SET role = EXCLUDED.role
                    """)
            } else {
                // Their tasks are unassigned as edits first (0026): the foreign key's SET NULL
                // would do it silently, leaving versions, history and watchers behind.
                // It says how many: under the lock, what this removal changed.
                unassigned = try await tx.query("SELECT taskbase_unassign(\(team.rawValue), \(user.rawValue), \(time)) AS unassigned")[0]
                    .decode(Int64.self, "unassigned")
                let removed = try await tx.query(
                    "DELETE FROM memberships WHERE team_id = \(team.rawValue) AND user_id = \(user.rawValue) RETURNING user_id")
                // Gone already (removed at the same time by someone else): nothing is done.
                if removed.isEmpty { throw TaskError.notFound(what: "member \(member.email) of team \(keyText)") }
            }
            // Watchers read again: one who lost access is refused at once.
            try await tx.execute("SELECT \(Self.doorbellSQL(try TeamKey(keyText)))")
            return Int(unassigned)
        }
    }

    /// The service judged the change in transactions of its own, before this one took the lock:
    /// by now the actor may have been demoted (two owners demoting each other at once), and row
    /// security would refuse the write as SQLSTATE 42501 (a 500). Read again under the lock (in
    /// a statement of its own, which sees what the lock waited for) and judged by `MembershipRule`.
    /// Returns the member's role as read then (nil: no member).
    private static func verifyStillMayChange(
        _ member: User, to role: Role?, in key: String, team: TeamID, actor: UserID, _ tx: PGConnection
    ) async throws -> Role? {
        let rows = try await tx.query(
            """
            SELECT (SELECT m.role FROM memberships m WHERE m.team_id = \(team.rawValue) AND m.user_id = \(actor.rawValue)) AS actor_role,
                   (SELECT m.role FROM memberships m WHERE m.team_id = \(team.rawValue) AND m.user_id = \(member.id.rawValue)) AS member_role,
                   (SELECT u.email FROM users u WHERE u.id = \(actor.rawValue)) AS actor_email
            """)
        guard let actorRole = try Self.role(in: rows[0], "actor_role") else { throw TaskError.notFound(what: "team \(key)") }
        let memberRole = try Self.role(in: rows[0], "member_role")
        try MembershipRule.verify(
            changing: memberRole, to: role, leaving: member.id == actor,
            actor: try rows[0].decode(String?.self, "actor_email") ?? "user #\(actor)", actorRole: actorRole, team: key)
        return memberRole
    }

    public func renameTeam(_ team: TeamID, to name: String, actor: UserID) async throws -> Team {
        try await transaction(as: .id(actor)) { tx in
            let rows = try await tx.query(
                """
                UPDATE teams tm SET name = \(name) WHERE tm.id = \(team.rawValue) RETURNING \(unsafeSQL: Self.teamColumns)
                """)
            guard let renamed = try rows.first.flatMap(Self.team(in:)) else { throw TaskError.notFound(what: "team #\(team)") }
            return renamed
        }
    }

    public func deleteTeam(_ team: TeamID, actor: UserID) async throws {
        try await transaction(as: .id(actor)) { tx in
            // History keeps no foreign key to teams (0013): the teams_delete_history trigger
            // (0014) deletes it with the team, once every writer of history is shut out:
            // creations and imports lock the counter, edits and deletions a task.
            try await tx.execute("SELECT FROM task_counters WHERE team_id = \(team.rawValue) FOR UPDATE")
            try await tx.execute("SELECT FROM tasks WHERE team_id = \(team.rawValue) FOR UPDATE")
            // Watchers read again, and are refused.
            try await tx.execute(
                """
                WITH gone AS (DELETE FROM teams WHERE id = \(team.rawValue) RETURNING key)
                SELECT pg_notify(\(Self.channelPrefix) || gone.key, '') FROM gone
                """)
        }
    }
}
