import Foundation
import PGStore
import TaskCore

/// The import port: every batch is COPYed into a temporary staging table, checked there as a
/// whole, and merged into `tasks` by one statement (INSERT of the new external ids, UPDATE of
/// the known ones), all in one transaction — a failure anywhere leaves the database as it was.
extension PostgresTaskStore: TaskImportPort {
    static let stagingColumns = [
        "line", "external_id", "title", "notes", "status", "priority", "due_date", "assignee_id", "assignee_email", "category", "keeps",
    ]

    /// The staged columns a row may keep (`TaskImportDraft.keeps`), with their flag.
    static let keptColumns: [(name: String, flag: TaskImportDraft.Fields)] = [
        ("notes", .notes), ("status", .status), ("priority", .priority), ("due_date", .dueDate), ("assignee_id", .assignee),
        ("category", .category),
    ]

    /// A staged row's two assignee columns: the id or the normalized email, the other NULL.
    static func assigneeColumns(_ assignee: UserRef?) -> (id: Int64?, email: String?) {
        switch assignee {
        case .id(let id): (id.rawValue, nil)
        case .email(let email): (nil, emailKey(email))
        case nil: (nil, nil)
        }
    }

    /// The columns an import sets on a known task, with their types: what it compares to
    /// tell a changed row, and what a change's history lists.
    static let mergedColumns: [(name: String, type: String)] = [
        ("title", "text"), ("notes", "text"), ("status", "text"), ("priority", "text"), ("due_date", "date"), ("assignee_id", "bigint"),
        ("category", "text"),
    ]

    /// A changed task's history `changes`, in the merge's UPDATE ... RETURNING: from the values
    /// the staged row carries (`s.old_*`; the external id is the join key, the same before and
    /// after) to the row as updated (`t`). Built there, the UPDATE hands on one JSON value per
    /// task rather than fifteen columns for a later step to compare.
    static let importedChange = historyChangesSQL(
        old: { $0 == "external_id" ? "s.external_id" : "s.old_\($0)" }, new: { "t.\($0)" })

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
                // Serializes with task creation and other imports in this team, so numbers stay
                // gapless.
                let counter = try await tx.query(
                    "SELECT last_number, last_change FROM task_counters WHERE team_id = \(teamID.rawValue) FOR UPDATE")
                let lastNumber = try counter[0].decode(Int64.self, "last_number")
                let lastChange = try counter[0].decode(Int64.self, "last_change")
                // Whether the team has any task yet, which the lock keeps true until commit: read
                // in a statement of its own, after the lock. In the locking statement its snapshot
                // predated the wait, so an import waiting on another first import of the same
                // file still saw the team empty, took the first-import path, and failed on every
                // external id ("already exists", 409) instead of finding them unchanged.
                let teamIsEmpty = try await tx.query(
                    "SELECT NOT EXISTS (SELECT FROM tasks WHERE team_id = \(teamID.rawValue)) AS empty")[0].decode(Bool.self, "empty")
                // The merge's hash joins (the team's tasks by external id and number) and its
                // sort by line stay in memory up to this, where 4 MB spilled them to disk. And no
                // JIT: the merge's estimated cost is far above jit_above_cost, so PostgreSQL
                // compiled it to machine code on every import — 1.8 s of a 2.5 s re-import merge
                // of 200,000 rows (auto_explain's JIT timing) — for a plan that runs once.
                try await tx.execute("SET LOCAL work_mem = '64MB'")
                try await tx.execute("SET LOCAL jit = off")
                let (staged, assigned, keeping) = try await Self.stage(batches, drawingIDs: teamIsEmpty, on: tx)
                let merge = { (tx: PGConnection) in
                    try await Self.merge(
                        team: team, teamID: teamID, staged: staged, lastNumber: lastNumber, lastChange: lastChange,
                        teamIsEmpty: teamIsEmpty, policy: policy, actor: actor.id, at: time, on: tx)
                }
                let summary: ImportSummary
                if teamIsEmpty {
                    // Nothing to clash with; and every row is inserted, so an external id twice
                    // in the input is the unique violation of the insert: the check that names
                    // both rows runs only then (its GROUP BY was 5% of such an import).
                    try await Self.checkStaged(
                        team: team, teamID: teamID, policy: .update, duplicates: false, assignees: assigned, on: tx)
                    do {
                        summary = try await tx.withSavepoint(merge)
                    } catch let error as PGError where error.code == .uniqueViolation && error.constraint == "tasks_external_id_key" {
                        try await Self.refuseDuplicates(on: tx)
                        throw error
                    }
                } else {
                    try await Self.checkStaged(team: team, teamID: teamID, policy: policy, duplicates: true, assignees: assigned, on: tx)
                    if keeping, policy == .update { try await Self.fillKeptValues(teamID: teamID, on: tx) }
                    summary = try await merge(tx)
                }
                if dryRun { throw DryRunFinished(summary: summary) }
                return summary
            }
        } catch let finished as DryRunFinished {
            return finished.summary
        }
    }

    /// Creates the staging table and COPYs every batch into it; returns how many rows it staged
    /// (their lines are 1, 2, 3, ...) and whether any of them names an assignee. With
    /// `drawingIDs` (a first import: every row becomes a task) each row draws its task's id from
    /// the identity sequence as it is copied (`id`), so the merge reads the staging table
    /// directly instead of materializing the rows with their ids first.
    static func stage<Batches: AsyncSequence>(
        _ batches: Batches, drawingIDs: Bool, on tx: PGConnection
    ) async throws -> (
        rows: Int, assigned: Bool, keeping: Bool
    )
    where Batches.Element == [TaskImportDraft] {
        try await tx.execute(
            """
            CREATE TEMP TABLE taskbase_import (
                line bigint NOT NULL, external_id text NOT NULL, title text NOT NULL, notes text NOT NULL,
                status text NOT NULL, priority text NOT NULL, due_date date, assignee_id bigint, assignee_email text,
                category text, keeps smallint NOT NULL\(unsafeSQL: drawingIDs ? ", id bigint NOT NULL DEFAULT nextval('tasks_id_seq')" : "")
            ) ON COMMIT DROP
            """)
        var line: Int64 = 0
        var assigned = false
        var keeping = false
        for try await batch in batches where !batch.isEmpty {
            try await tx.copyIn(table: "taskbase_import", columns: stagingColumns, format: .text) { writer in
                for item in batch {
                    line += 1
                    let draft = item.draft
                    let (assigneeID, assigneeEmail) = Self.assigneeColumns(draft.assignee)
                    if draft.assignee != nil { assigned = true }
                    if !item.keeps.isEmpty { keeping = true }
                    try await writer.writeRow([
                        String(line), item.externalID, draft.title, draft.notes, draft.status.rawValue, draft.priority.rawValue,
                        draft.dueDate?.description, assigneeID.map(String.init), assigneeEmail, draft.category, String(item.keeps.rawValue),
                    ])
                }
            }
        }
        // Statistics for the columns the merge joins and groups on (the row count comes with
        // them); the others' (notes, titles) cost two thirds of a whole-table ANALYZE and guide
        // no plan.
        try await tx.execute("ANALYZE taskbase_import (line, external_id)")
        return (Int(line), assigned, keeping)
    }

    /// Gives each staged row of a known task the task's values of the fields the row keeps
    /// (`TaskImportDraft.keeps`), so the merge leaves them as they are: a re-import of a file
    /// without some columns changes only the columns it has. Runs after the assignee check, so
    /// a kept assignee (who may have left the team since) is not judged.
    static func fillKeptValues(teamID: TeamID, on tx: PGConnection) async throws {
        let assignments = keptColumns.map { column in
            "\(column.name) = CASE WHEN s.keeps & \(column.flag.rawValue) <> 0 THEN t.\(column.name) ELSE s.\(column.name) END"
        }
        try await tx.execute(
            """
            UPDATE taskbase_import s SET \(unsafeSQL: assignments.joined(separator: ", "))
              FROM tasks t
             WHERE s.keeps <> 0 AND t.team_id = \(teamID.rawValue) AND t.external_id = s.external_id
            """)
    }

    /// Refuses, before anything is merged: an external id twice in the input (with
    /// `duplicates`), an assignee who is not an enabled member (when any row names one:
    /// `assignees`; otherwise its two scans of the staging table are skipped), and (policy
    /// `fail`) an external id the team already has.
    static func checkStaged(
        team: TeamKey, teamID: TeamID, policy: ImportConflictPolicy, duplicates: Bool, assignees: Bool, on tx: PGConnection
    ) async throws {
        // Assignees first, as a first import (which finds duplicates only when its insert
        // fails) and the memory store judge them: a file with both faults is refused for its
        // assignee whatever the team holds.
        if assignees { try await checkAssignees(team: team, teamID: teamID, on: tx) }
        if duplicates { try await refuseDuplicates(on: tx) }
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

    /// Refuses an external id that is staged twice, naming its first and last row.
    static func refuseDuplicates(on tx: PGConnection) async throws {
        let duplicate = try await tx.query(
            """
            SELECT external_id, min(line) AS first, max(line) AS last FROM taskbase_import
             GROUP BY external_id HAVING count(*) > 1 ORDER BY min(line) LIMIT 1
            """)
        if let row = duplicate.first {
            throw TaskError.externalIDRepeated(
                try row.decode(String.self, "external_id"), rows: try row.decode(Int.self, "first"), and: try row.decode(Int.self, "last"))
        }
    }

    /// Resolves assignees staged by email, and refuses one who is not an enabled member.
    static func checkAssignees(team: TeamKey, teamID: TeamID, on tx: PGConnection) async throws {
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
    ///
    /// Into a team without tasks (`teamIsEmpty`, the first import) every row is new: the rows
    /// are numbered by their line (staged lines are 1, 2, 3, ...), with no join to the team's
    /// tasks and no sort for `row_number()`, which were 10% of such an import's server CPU; and
    /// their ids were drawn as they were staged, so `fresh` is the staging table read in place
    /// by each insert, not a million rows with ids written to a tuplestore (and spilled to disk)
    /// first: 3–4 s of a 1,000,000-row first import.
    /// Otherwise only the new rows' lines are sorted to number them (`numbered`), not whole
    /// rows (a re-import with nothing new sorts nothing). A known row carries the values it had
    /// (`old_*`, read with its number), so an unchanged row is told apart before the UPDATE's
    /// join, and a change's history is written from what the UPDATE returns, without reading
    /// the tasks a third time.
    static func merge(
        team: TeamKey, teamID: TeamID, staged count: Int, lastNumber: Int64, lastChange: Int64, teamIsEmpty: Bool,
        policy: ImportConflictPolicy, actor: UserID, at time: Date, on tx: PGConnection
    ) async throws -> ImportSummary {
        let oldColumns = mergedColumns.map(\.name)
        let rowsAndNumbers: PGQuery =
            teamIsEmpty
            ? """
            staged AS (
                SELECT s.*, NULL::bigint AS old_number,
                       \(unsafeSQL: mergedColumns.map { "NULL::\($0.type) AS old_\($0.name)" }.joined(separator: ", "))
                  FROM taskbase_import s
            ), fresh AS NOT MATERIALIZED (
                SELECT s.*, s.id AS new_id, \(lastNumber) + s.line AS new_number FROM taskbase_import s
            )
            """
            : """
            staged AS (
                SELECT s.*, old.number AS old_number, \(unsafeSQL: oldColumns.map { "old.\($0) AS old_\($0)" }.joined(separator: ", "))
                  FROM taskbase_import s
                  LEFT JOIN tasks old ON old.team_id = \(teamID.rawValue) AND old.external_id = s.external_id
            ), numbered AS (
                SELECT line, nextval('tasks_id_seq') AS new_id, \(lastNumber) + row_number() OVER (ORDER BY line) AS new_number
                  FROM staged WHERE old_number IS NULL
            ), fresh AS (
                SELECT s.*, n.new_id, n.new_number FROM staged s JOIN numbered n ON n.line = s.line
            )
            """
        let rows = try await tx.query(
            """
            WITH \(rowsAndNumbers), inserted AS (
                INSERT INTO tasks (id, team_id, number, title, notes, status, priority, due_date, assignee_id, category,
                                   external_id, created_by, created_at, updated_by, updated_at)
                SELECT new_id, \(teamID.rawValue), new_number, title, notes, status, priority, due_date, assignee_id, category,
                       external_id, \(actor.rawValue), \(time), \(actor.rawValue), \(time)
                  FROM fresh
            ), created AS (
                INSERT INTO task_history (team_id, task_id, task_number, version, actor_id, changed_at, kind, created_values)
                SELECT \(teamID.rawValue), new.new_id, new.new_number, 1, \(actor.rawValue), \(time), 'imported',
                       \(unsafeSQL: historyOfCreation)
                  FROM fresh new
            ), updated AS (
                UPDATE tasks t
                   SET title = s.title, notes = s.notes, status = s.status, priority = s.priority, due_date = s.due_date,
                       assignee_id = s.assignee_id, category = s.category, updated_by = \(actor.rawValue), updated_at = \(time),
                       version = t.version + 1
                  FROM staged s
                 WHERE \(policy == .update) AND s.old_number IS NOT NULL
                   AND (\(unsafeSQL: oldColumns.map { "s.old_\($0)" }.joined(separator: ", ")))
                       IS DISTINCT FROM (\(unsafeSQL: oldColumns.map { "s.\($0)" }.joined(separator: ", ")))
                   AND t.team_id = \(teamID.rawValue) AND t.number = s.old_number
                   AND (\(unsafeSQL: oldColumns.map { "t.\($0)" }.joined(separator: ", ")))
                       IS DISTINCT FROM (\(unsafeSQL: oldColumns.map { "s.\($0)" }.joined(separator: ", ")))
                RETURNING s.line, t.id, t.number, t.version, \(unsafeSQL: importedChange) AS changes
            ), changed AS (
                INSERT INTO task_history (team_id, task_id, task_number, version, actor_id, changed_at, kind, changes)
                SELECT \(teamID.rawValue), id, number, version, \(actor.rawValue), \(time), 'reimported', changes FROM updated
            ), counts AS (
                SELECT (SELECT count(*) FROM fresh) AS inserted, (SELECT count(*) FROM updated) AS updated
            ), changes AS (
                SELECT line, 'created' AS kind, new_number AS number, new_id AS id, 1::bigint AS version FROM fresh
                 WHERE (SELECT inserted + updated FROM counts) <= \(Int64(TaskChange.bulkImportThreshold))
                UNION ALL
                SELECT line, 'updated', number, id, version FROM updated
                 WHERE (SELECT inserted + updated FROM counts) <= \(Int64(TaskChange.bulkImportThreshold))
            ), logged AS (
                INSERT INTO task_changes (\(unsafeSQL: changeLogColumns))
                SELECT \(teamID.rawValue), \(lastChange) + row_number() OVER (ORDER BY line), kind, id, number, version,
                       \(actor.rawValue), \(time)
                  FROM changes
                UNION ALL
                SELECT \(teamID.rawValue), \(lastChange) + 1, 'bulk', NULL, NULL, NULL, \(actor.rawValue), \(time)
                 WHERE (SELECT inserted + updated FROM counts) > \(Int64(TaskChange.bulkImportThreshold))
                RETURNING 1
            ), counter AS (
                -- In the statement that inserts the tasks: migration 0023 refuses a task numbered
                -- past the counter at the statement's end.
                UPDATE task_counters
                   SET last_number = last_number + (SELECT inserted FROM counts), last_change = last_change + (SELECT count(*) FROM logged)
                 WHERE team_id = \(teamID.rawValue) AND ((SELECT inserted FROM counts) > 0 OR EXISTS (SELECT FROM logged))
                RETURNING 1
            ), notified AS (
                SELECT \(doorbellSQL(team)) WHERE (SELECT inserted + updated FROM counts) > 0
            )
            SELECT inserted, updated, \(count) - inserted AS existing, (SELECT count(*) FROM counter) AS counted,
                   (SELECT count(*) FROM notified) AS notified
              FROM counts
            """)
        let counts = rows[0]
        let inserted = try counts.decode(Int.self, "inserted")
        let updated = try counts.decode(Int.self, "updated")
        let existing = try counts.decode(Int.self, "existing")
        switch policy {
        case .update: return ImportSummary(inserted: inserted, updated: updated, unchanged: existing - updated)
        case .skip: return ImportSummary(inserted: inserted, skipped: existing)
        case .fail: return ImportSummary(inserted: inserted)
        }
    }
}
