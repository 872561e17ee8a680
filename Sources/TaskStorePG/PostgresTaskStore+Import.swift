import Foundation
import PGStore
import TaskCore

/// The import port: every batch is COPYed into a temporary staging table, checked there as a
/// whole, and merged into `tasks` by one statement (INSERT of the new external ids, UPDATE of
/// the known ones), all in one transaction — a failure anywhere leaves the database as it was.
extension PostgresTaskStore: TaskImportPort {
    static let stagingColumns = [
        "line", "external_id", "title", "notes", "status", "priority", "due_date", "assignee_id", "assignee_email", "category",
    ]

    /// A staged row's two assignee columns: the id or the normalized email, the other NULL.
    static func assigneeColumns(_ assignee: UserRef?) -> (id: Int64?, email: String?) {
        switch assignee {
        case .id(let id): (id.rawValue, nil)
        case .email(let email): (nil, UserFields.normalizedEmailKey(email))
        case nil: (nil, nil)
        }
    }

    /// Carries a dry run's summary out of the transaction it rolls back.
    private struct DryRunFinished: Error { var summary: ImportSummary }

    public func importTasks<Batches: AsyncSequence & Sendable>(
        into team: TeamKey, policy: ImportConflictPolicy, dryRun: Bool, batches: Batches, access: AccessRequirement, at time: Date
    ) async throws -> ImportSummary where Batches.Element == [TaskImportDraft] {
        do {
            return try await transaction(as: access.actor) { tx in
                let row = try await tx.query(Self.teamFacts(team, access))[0]
                let actor = try access.verify(AccessFacts(actor: Self.user(in: row), role: Self.role(in: row)), subject: "team \(team)")
                guard let teamID = try Self.team(in: row)?.id else { throw TaskError.notFound(what: "team \(team)") }
                // Serializes with task creation in this team, so numbers stay gapless.
                let counter = try await tx.query(
                    "SELECT last_number, last_change FROM task_counters WHERE team_id = \(teamID.rawValue) FOR UPDATE")
                let lastNumber = try counter[0].decode(Int64.self, "last_number")
                let lastChange = try counter[0].decode(Int64.self, "last_change")
                try await Self.stage(batches, on: tx)
                try await Self.checkStaged(team: team, teamID: teamID, policy: policy, on: tx)
                let summary = try await Self.merge(
                    team: team, teamID: teamID, lastNumber: lastNumber, lastChange: lastChange, policy: policy, actor: actor.id, at: time,
                    on: tx)
                if dryRun { throw DryRunFinished(summary: summary) }
                return summary
            }
        } catch let finished as DryRunFinished {
            return finished.summary
        }
    }

    /// Creates the staging table and COPYs every batch into it.
    static func stage<Batches: AsyncSequence>(_ batches: Batches, on tx: PGConnection) async throws where Batches.Element == [TaskImportDraft] {
        try await tx.execute(
            """
            CREATE TEMP TABLE taskbase_import (
                line bigint NOT NULL, external_id text NOT NULL, title text NOT NULL, notes text NOT NULL,
                status text NOT NULL, priority text NOT NULL, due_date date, assignee_id bigint, assignee_email text,
                category text
            ) ON COMMIT DROP
            """)
        var line: Int64 = 0
        for try await batch in batches where !batch.isEmpty {
            try await tx.copyIn(table: "taskbase_import", columns: stagingColumns, format: .text) { writer in
                for item in batch {
                    line += 1
                    let draft = item.draft
                    let (assigneeID, assigneeEmail) = Self.assigneeColumns(draft.assignee)
                    try await writer.writeRow([
                        String(line), item.externalID, draft.title, draft.notes, draft.status.rawValue, draft.priority.rawValue,
                        draft.dueDate?.description, assigneeID.map(String.init), assigneeEmail, draft.category,
                    ])
                }
            }
        }
        try await tx.execute("ANALYZE taskbase_import")
    }

    /// Refuses, before anything is merged: an external id twice in the input, an assignee who
    /// is not an enabled member, and (policy `fail`) an external id the team already has.
    static func checkStaged(team: TeamKey, teamID: TeamID, policy: ImportConflictPolicy, on tx: PGConnection) async throws {
        let duplicate = try await tx.query(
            """
            SELECT external_id, min(line) AS first, max(line) AS last FROM taskbase_import
             GROUP BY external_id HAVING count(*) > 1 ORDER BY min(line) LIMIT 1
            """)
        if let row = duplicate.first {
            throw TaskError.validation(
                field: "externalID",
                reason:
                    "\"\(try row.decode(String.self, "external_id"))\" appears more than once in the import (rows \(try row.decode(Int.self, "first")) and \(try row.decode(Int.self, "last")))"
            )
        }
        try await tx.execute(
            """
            UPDATE taskbase_import s SET assignee_id = u.id FROM users u
             WHERE s.assignee_id IS NULL AND s.assignee_email IS NOT NULL AND lower(u.email) = s.assignee_email
            """)
        let badAssignee = try await tx.query(
            """
            SELECT s.assignee_id AS ref_id, s.assignee_email AS ref_email, \(unsafeSQL: userColumns), m.role
              FROM taskbase_import s
              LEFT JOIN users u ON u.id = s.assignee_id
              LEFT JOIN memberships m ON m.team_id = \(teamID.rawValue) AND m.user_id = u.id
             WHERE (s.assignee_id IS NOT NULL OR s.assignee_email IS NOT NULL) AND (u.id IS NULL OR u.disabled OR m.role IS NULL)
             ORDER BY s.line LIMIT 1
            """)
        if let row = badAssignee.first {
            let ref: UserRef = try row.decode(Int64?.self, "ref_id").map { .id(UserID($0)) } ?? .email(try row.decode(String.self, "ref_email"))
            _ = try AssigneeRule.verify(ref, user: user(in: row), role: role(in: row), team: team)
        }
        if policy == .fail {
            let clash = try await tx.query(
                """
                SELECT s.external_id, t.number FROM taskbase_import s
                  JOIN tasks t ON t.team_id = \(teamID.rawValue) AND t.external_id = s.external_id
                 ORDER BY s.line LIMIT 1
                """)
            if let row = clash.first {
                let key = TaskKey(team: team, number: try row.decode(Int64.self, "number"))
                throw TaskError.alreadyExists(what: "external id \"\(try row.decode(String.self, "external_id"))\" in team \(team) (task \(key))")
            }
        }
    }

    /// The one merge statement, history, the counter, and the change log: each changed task
    /// under its own sequence, or one `bulk` entry above `TaskChange.bulkImportThreshold`.
    ///
    /// The team's counter row is locked (FOR UPDATE) for the whole import, which serializes
    /// every task creation in the team; so a staged row whose external id the team does not
    /// have yet is new for certain and goes in with a plain INSERT (its id drawn from the
    /// identity sequence up front, so its history is written from the same staged row), and a
    /// known one is changed with an UPDATE. No `ON CONFLICT` speculative insertion and no wide
    /// `RETURNING` of every merged task: together ~25% of the merge's time. (An update that
    /// gives an existing task one of the new external ids while the import runs makes the
    /// INSERT fail with the unique violation, and the whole import rolls back.)
    static func merge(
        team: TeamKey, teamID: TeamID, lastNumber: Int64, lastChange: Int64, policy: ImportConflictPolicy, actor: UserID, at time: Date,
        on tx: PGConnection
    ) async throws -> ImportSummary {
        let rows = try await tx.query(
            """
            WITH staged AS (
                SELECT s.*, old.number AS old_number,
                       CASE WHEN old.number IS NULL THEN nextval('tasks_id_seq') END AS new_id,
                       CASE WHEN old.number IS NULL
                            THEN \(lastNumber) + row_number() OVER (PARTITION BY old.number IS NULL ORDER BY s.line) END AS new_number
                  FROM taskbase_import s
                  LEFT JOIN tasks old ON old.team_id = \(teamID.rawValue) AND old.external_id = s.external_id
            ), inserted AS (
                INSERT INTO tasks (id, team_id, number, title, notes, status, priority, due_date, assignee_id, category,
                                   external_id, created_by, created_at, updated_by, updated_at)
                SELECT new_id, \(teamID.rawValue), new_number, title, notes, status, priority, due_date, assignee_id, category,
                       external_id, \(actor.rawValue), \(time), \(actor.rawValue), \(time)
                  FROM staged WHERE old_number IS NULL
            ), created AS (
                INSERT INTO task_history (team_id, task_id, version, actor_id, changed_at, kind, changes)
                SELECT \(teamID.rawValue), new.new_id, 1, \(actor.rawValue), \(time), 'imported',
                       \(unsafeSQL: historyOfCreation)
                  FROM staged new WHERE new.old_number IS NULL
            ), updated AS (
                UPDATE tasks t
                   SET title = s.title, notes = s.notes, status = s.status, priority = s.priority, due_date = s.due_date,
                       assignee_id = s.assignee_id, category = s.category, updated_by = \(actor.rawValue), updated_at = \(time),
                       version = t.version + 1
                  FROM staged s
                 WHERE \(policy == .update) AND s.old_number IS NOT NULL
                   AND t.team_id = \(teamID.rawValue) AND t.number = s.old_number
                   AND (t.title, t.notes, t.status, t.priority, t.due_date, t.assignee_id, t.category)
                       IS DISTINCT FROM (s.title, s.notes, s.status, s.priority, s.due_date, s.assignee_id, s.category)
                RETURNING t.*
            ), changed AS (
                INSERT INTO task_history (team_id, task_id, version, actor_id, changed_at, kind, changes)
                SELECT new.team_id, new.id, new.version, new.updated_by, new.updated_at, 'reimported',
                       \(unsafeSQL: historyOfChange)
                  FROM updated new
                  JOIN tasks old ON old.team_id = new.team_id AND old.number = new.number
            ), counts AS (
                SELECT count(*) AS staged, count(*) FILTER (WHERE old_number IS NULL) AS inserted FROM staged
            ), changes AS (
                SELECT 'created' AS kind, new_number AS number, new_id AS id, 1::bigint AS version FROM staged WHERE old_number IS NULL
                UNION ALL
                SELECT 'updated', number, id, version FROM updated
            ), total AS (
                SELECT count(*) AS changes FROM changes
            ), logged AS (
                INSERT INTO task_changes (\(unsafeSQL: changeLogColumns))
                SELECT \(teamID.rawValue), \(lastChange) + row_number() OVER (ORDER BY kind, number), kind, id, number, version,
                       \(actor.rawValue), \(time)
                  FROM changes WHERE (SELECT changes FROM total) <= \(Int64(TaskChange.bulkImportThreshold))
                UNION ALL
                SELECT \(teamID.rawValue), \(lastChange) + 1, 'bulk', NULL, NULL, NULL, \(actor.rawValue), \(time)
                 WHERE (SELECT changes FROM total) > \(Int64(TaskChange.bulkImportThreshold))
                RETURNING 1
            ), notified AS (
                SELECT \(doorbellSQL(team)) WHERE (SELECT changes FROM total) > 0
            )
            SELECT (SELECT staged FROM counts) AS staged,
                   (SELECT staged - inserted FROM counts) AS existing,
                   (SELECT inserted FROM counts) AS inserted,
                   (SELECT count(*) FROM updated) AS updated,
                   (SELECT count(*) FROM logged) AS logged,
                   (SELECT count(*) FROM notified) AS notified
            """)
        let counts = rows[0]
        let inserted = try counts.decode(Int.self, "inserted")
        let updated = try counts.decode(Int.self, "updated")
        let existing = try counts.decode(Int.self, "existing")
        let logged = try counts.decode(Int.self, "logged")
        if inserted > 0 || logged > 0 {
            try await tx.execute(
                """
                UPDATE task_counters SET last_number = last_number + \(inserted), last_change = last_change + \(logged)
                 WHERE team_id = \(teamID.rawValue)
                """)
        }
        switch policy {
        case .update: return ImportSummary(inserted: inserted, updated: updated, unchanged: existing - updated)
        case .skip: return ImportSummary(inserted: inserted, skipped: existing)
        case .fail: return ImportSummary(inserted: inserted)
        }
    }
}
