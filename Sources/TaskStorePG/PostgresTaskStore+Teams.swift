import Foundation
import PGStore
import TaskCore

extension PostgresTaskStore: TeamRepository {
    public func createTeam(key: TeamKey, name: String, owner: UserID, at time: Date) async throws -> Team {
        try await transaction(as: .id(owner)) { tx in
            let rows = try await tx.query(
                """
                INSERT INTO teams AS tm (key, name, created_by, created_at) VALUES (\(key.rawValue), \(name), \(owner.rawValue), \(time))
                RETURNING \(unsafeSQL: Self.teamColumns)
                """)
            let team = try Self.team(in: rows[0])!
            try await tx.execute(
                """
                WITH member AS (
                    INSERT INTO memberships (team_id, user_id, role, created_at) VALUES (\(team.id.rawValue), \(owner.rawValue), 'owner', \(time))
                )
                INSERT INTO task_counters (team_id) VALUES (\(team.id.rawValue))
                """)
            return team
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
                 ORDER BY tm.key
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
                 ORDER BY u.email
                """
            ).map { row in Member(user: try Self.user(in: row)!, role: try Self.role(in: row)!) }
        }
    }

    public func setRole(_ role: Role?, of user: UserID, in team: TeamID, actor: UserID) async throws {
        try await transaction(as: .id(actor)) { tx in
            // The team row's lock serializes membership changes, so the owner count below is
            // the count after every change that committed before this one.
            let locked = try await tx.query("SELECT key FROM teams WHERE id = \(team.rawValue) FOR UPDATE")
            guard let keyText = try locked.first?.decode(String.self, "key") else { throw TaskError.notFound(what: "team #\(team)") }
            if let role {
                try await tx.execute(
                    """
                    INSERT INTO memberships (team_id, user_id, role) VALUES (\(team.rawValue), \(user.rawValue), \(role.rawValue))
                    ON CONFLICT (team_id, user_id) DO UPDATE SET role = EXCLUDED.role
                    """)
            } else {
                try await tx.execute("DELETE FROM memberships WHERE team_id = \(team.rawValue) AND user_id = \(user.rawValue)")
            }
            let owners = try await tx.query(
                """
                SELECT count(*) AS owners FROM memberships WHERE team_id = \(team.rawValue) AND role = 'owner'
                """)
            let key = try TeamKey(keyText)
            try OwnerRule.verify(ownersAfterChange: try owners[0].decode(Int.self, "owners"), team: key)
            // Watchers read again: one who lost access is refused at once.
            try await tx.execute("SELECT \(Self.doorbellSQL(key))")
        }
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
            // Watchers read again, and are refused.
            try await tx.execute(
                """
                WITH gone AS (DELETE FROM teams WHERE id = \(team.rawValue) RETURNING key)
                SELECT pg_notify(\(Self.channelPrefix) || gone.key, '') FROM gone
                """)
        }
    }
}
