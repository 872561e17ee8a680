import Foundation
import PGStore
import TaskCore

/// The change feed is the team's change log (`task_changes`, numbered under the counter lock)
/// with NOTIFY as a doorbell: a notification on the team's channel, sent inside the writing
/// transaction (so it arrives once the change is committed), carries nothing. Any role can
/// notify or listen on any channel, so nothing a notification says is trusted: the watcher
/// reads the log under row-level security and the service's access check.
extension PostgresTaskStore {
    /// The channel names start with this; the team's key follows.
    static let channelPrefix = "taskbase.team."

    /// The channel of team `key`.
    static func channel(for key: TeamKey) -> String { channelPrefix + key.rawValue }

    /// SQL that rings the doorbell of team `team`: an empty notification, which PostgreSQL
    /// delivers when the transaction commits (and sends once, however often a transaction rings).
    static func doorbellSQL(_ team: TeamKey) -> PGQuery {
        "pg_notify(\(channel(for: team)), '')"
    }

    /// The columns a log entry is written with, in `task_changes`' order.
    static let changeLogColumns = "team_id, sequence, kind, task_id, number, version, actor_id, changed_at"

    /// Reads the team's log after `position`, at most `limit` entries, with the access facts
    /// in the same statement: nothing of the log is read unless the actor may read the team.
    /// With `readers`, the same statement also lists the enabled members of `access`'s role or
    /// above (row-level security shows a member every membership of their team).
    func changeLog(_ team: TeamKey, after position: Int64, limit: Int, access: AccessRequirement, readers: Bool = false) async throws -> ChangeLogRead
    {
        let rows = try await statement(
            as: access.actor,
            """
            SELECT \(unsafeSQL: Self.userColumns), m.role, c.last_change, r.readers, tm.id AS log_team_id,
                   e.sequence, e.kind, e.task_id, e.number, e.version, e.actor_id, e.changed_at
              FROM \(Self.accessFactsFrom(access.actor, team: team))
              LEFT JOIN task_counters c
                ON c.team_id = tm.id AND m.role IS NOT NULL AND NOT u.disabled
               AND array_position(\(unsafeSQL: Self.roleRanks), m.role) >= \(Self.rank(access.minimumRole))
              LEFT JOIN LATERAL (
                  SELECT array_agg(r0.user_id) AS readers
                    FROM memberships r0 JOIN users u0 ON u0.id = r0.user_id
                   WHERE \(readers) AND r0.team_id = c.team_id AND NOT u0.disabled
                     AND array_position(\(unsafeSQL: Self.roleRanks), r0.role) >= \(Self.rank(access.minimumRole))
              ) r ON true
              LEFT JOIN LATERAL (
                  SELECT * FROM task_changes e0 WHERE e0.team_id = c.team_id AND e0.sequence > \(position)
                   ORDER BY e0.sequence LIMIT \(Int64(limit))
              ) e ON true
             ORDER BY e.sequence
            """)
        try access.verify(AccessFacts(actor: Self.user(in: rows[0]), role: Self.role(in: rows[0])), subject: "team \(team)")
        let events = try rows.compactMap { row -> TaskFeedEvent? in
            guard let sequence = try row.decode(Int64?.self, "sequence") else { return nil }
            let kind = try row.decode(String.self, "kind")
            guard kind != "bulk" else { return .resync(through: sequence) }
            return .change(
                TaskChange(
                    kind: try Self.enumValue(TaskChange.Kind.self, row, "kind"),
                    key: TaskKey(team: team, number: try row.decode(Int64.self, "number")),
                    taskID: TaskID(try row.decode(Int64.self, "task_id")), version: try row.decode(Int64.self, "version"),
                    actorID: UserID(try row.decode(Int64.self, "actor_id")), at: try row.decode(Date.self, "changed_at"),
                    sequence: sequence))
        }
        let readerIDs = readers ? Set((try rows[0].decode([Int64]?.self, "readers") ?? []).map { UserID($0) }) : nil
        return ChangeLogRead(
            events: events, lastSequence: try rows[0].decode(Int64?.self, "last_change") ?? 0, readers: readerIDs,
            teamID: TeamID(try rows[0].decode(Int64.self, "log_team_id")))
    }
}

extension PostgresTaskStore: TaskChangeFeed {
    /// Checks read access, LISTENs on the team's channel through the store's one listening
    /// session (`listenConfig` when set; a listening session cannot serve queries), and follows
    /// the log (`ChangeLogFollower`), each notification ringing for one more read.
    public func changes(in team: TeamKey, after: Int64?, access: AccessRequirement) async throws -> TaskChangeStream {
        _ = try await teamAccess(team, access: access)
        let doorbell = try await doorbell(of: team)
        return try await ChangeLogFollower.follow(
            team, after: after, doorbell: doorbell.rings,
            read: { [self] position, limit in try await changeLog(team, after: position, limit: limit, access: access) },
            finish: doorbell.stop)
    }

    /// One read of the log with the team's readers in the same statement (`changeLog(_:after:limit:access:readers:)`).
    public func changeLog(in team: TeamKey, after position: Int64, limit: Int, access: AccessRequirement) async throws -> ChangeLogRead {
        try await changeLog(team, after: position, limit: limit, access: access, readers: true)
    }

    /// The team's doorbell from the store's one listening session: once this returns, the
    /// team's channel is listened to.
    public func doorbell(of team: TeamKey) async throws -> TeamDoorbell {
        let (rings, stop) = try await doorbell(on: Self.channel(for: team))
        return TeamDoorbell(rings: rings, stop: stop)
    }

    /// A doorbell on `channel` from the store's one listening session (`DoorbellHub`): each
    /// notification rings once (rings coalesce while nobody reads). `stop` ends it; the session
    /// stays for the other doorbells.
    func doorbell(on channel: String) async throws -> (rings: AsyncThrowingStream<Void, any Error>, stop: @Sendable () async -> Void) {
        try await doorbells.doorbell(on: channel)
    }

    /// The server process of the store's listening session, once one is open: every watcher
    /// and the token cache's doorbell share it.
    public var listeningBackendPID: Int32? {
        get async { await doorbells.backendPID }
    }
}
