import Foundation
import PGStore
import TaskCore

extension PostgresTaskStore: TaskRepository {
    public func createTask(in team: TeamKey, draft: TaskDraft, access: AccessRequirement, at time: Date) async throws -> TaskItem {
        let row = try await namingExternalIDHolder(draft.externalID, in: team, as: access.actor) {
            try await statement(as: access.actor, Self.taskCreation(in: team, draft: draft, access: access, at: time))[0]
        }
        try access.verify(AccessFacts(actor: Self.user(in: row), role: Self.role(in: row)), subject: "team \(team)")
        if let ref = draft.assignee {
            _ = try AssigneeRule.verify(ref, user: Self.assigneeFacts(in: row), role: Self.role(in: row, "assignee_role"), team: team)
        }
        guard let task = try Self.task(in: row, team: team) else { throw TaskError.notFound(what: "team \(team)") }
        return task
    }

    /// Creates the task in one statement when the gate and the assignee pass, and returns the
    /// facts that let TaskCore say why when they did not. Its text is made once for each form of
    /// actor and assignee (`MadeOnceText`); a call binds only the values, in
    /// `writtenTaskCreation`'s order.
    static func taskCreation(in team: TeamKey, draft: TaskDraft, access: AccessRequirement, at time: Date) -> PGQuery {
        taskCreationText.query(CreationShape(actor: UserForm(access.actor), assignee: UserForm(draft.assignee))) {
            writtenTaskCreation(in: team, draft: draft, access: access, at: time)
        } bind: { query in
            bindUserMatch(access.actor, to: &query)
            query.bindNext(team.rawValue)
            query.bindNext(rank(access.minimumRole))
            bindUserMatch(draft.assignee, to: &query)
            query.bindNext(draft.assignee == nil)
            query.bindNext(draft.title)
            query.bindNext(draft.notes)
            query.bindNext(draft.status.rawValue)
            query.bindNext(draft.priority.rawValue)
            query.bindNext(draft.dueDate.map(pgDate))
            query.bindNext(draft.category)
            query.bindNext(draft.externalID)
            query.bindNext(time)
            query.bindNext(time)
            query.bindNext(channel(for: team))
            bindUserMatch(access.actor, to: &query)
            query.bindNext(team.rawValue)
            bindUserMatch(draft.assignee, to: &query)
        }
    }

    /// What the creation's text depends on.
    struct CreationShape: Hashable, Sendable {
        var actor: UserForm
        var assignee: UserForm
    }

    static let taskCreationText = MadeOnceText<CreationShape>()

    /// The creation written out: the one source of its text, which `taskCreation` reuses (a
    /// test holds the two to the same text and values).
    static func writtenTaskCreation(in team: TeamKey, draft: TaskDraft, access: AccessRequirement, at time: Date) -> PGQuery {
        let due = draft.dueDate.map(pgDate)
        return """
            WITH actor AS (
                SELECT u.id, u.disabled FROM users u WHERE \(userMatch("u", access.actor))
            ), gate AS (
                SELECT tm.id AS team_id FROM teams tm JOIN memberships m ON m.team_id = tm.id JOIN actor a ON a.id = m.user_id
                 WHERE tm.key = \(team.rawValue) AND NOT a.disabled
                   AND array_position(\(unsafeSQL: roleRanks), m.role) >= \(rank(access.minimumRole))
            ), assignee AS (
                SELECT u.id, u.disabled, am.role FROM users u
                  LEFT JOIN memberships am ON am.user_id = u.id AND am.team_id = (SELECT team_id FROM gate)
                 WHERE \(userMatch("u", draft.assignee))
            ), allowed AS (
                SELECT g.team_id FROM gate g
                 WHERE \(draft.assignee == nil) OR EXISTS (SELECT 1 FROM assignee WHERE NOT disabled AND role IS NOT NULL)
            ), counter AS (
                UPDATE task_counters c SET last_number = c.last_number + 1, last_change = c.last_change + 1 FROM allowed
                 WHERE c.team_id = allowed.team_id RETURNING c.team_id, c.last_number, c.last_change
            ), t AS (
                INSERT INTO tasks (team_id, number, title, notes, status, priority, due_date, assignee_id, category, external_id,
                                   created_by, created_at, updated_by, updated_at)
                SELECT counter.team_id, counter.last_number, \(draft.title), \(draft.notes), \(draft.status.rawValue),
                       \(draft.priority.rawValue), \(due), (SELECT id FROM assignee), \(draft.category), \(draft.externalID),
                       (SELECT id FROM actor), \(time), (SELECT id FROM actor), \(time)
                  FROM counter
                RETURNING *
            ), history AS (
                INSERT INTO task_history (team_id, task_id, task_number, version, actor_id, changed_at, kind, created_values)
                SELECT new.team_id, new.id, new.number, new.version, new.created_by, new.created_at, 'created',
                       \(unsafeSQL: historyOfCreation)
                  FROM t AS new
            ), logged AS (
                INSERT INTO task_changes (\(unsafeSQL: changeLogColumns))
                SELECT t.team_id, counter.last_change, 'created', t.id, t.number, t.version, t.created_by, t.created_at
                  FROM t JOIN counter ON true
            ), notified AS (
                SELECT \(doorbellSQL(team)) FROM t
            )
            SELECT \(unsafeSQL: userColumns), m.role,
                   au.id AS assignee_user_id, au.disabled AS assignee_disabled, am.role AS assignee_role,
                   \(unsafeSQL: taskColumns), (SELECT count(*) FROM notified) AS notified
              FROM \(accessFactsFrom(access.actor, team: team))
              LEFT JOIN users au ON \(userMatch("au", draft.assignee))
              LEFT JOIN memberships am ON am.team_id = tm.id AND am.user_id = au.id
              LEFT JOIN t ON true
            """
    }

    /// The assignee's user as far as the assignee rule needs it (existence, disabled).
    static func assigneeFacts(in row: PGRow) throws -> User? {
        guard let id = try row.decode(Int64?.self, "assignee_user_id") else { return nil }
        return User(id: UserID(id), email: "", displayName: "", isDisabled: try row.decode(Bool.self, "assignee_disabled"), createdAt: Date())
    }

    /// Facts, and the task locked for change when the actor may see it. The team's counter row
    /// is locked first (every change takes the next log sequence under it), so writers of a
    /// team always lock in the same order: counter, then task.
    static func lockedTaskFacts(_ key: TaskKey, _ access: AccessRequirement, assignee: UserRef?) -> PGQuery {
        """
        SELECT \(unsafeSQL: userColumns), m.role,
               au.id AS assignee_user_id, au.disabled AS assignee_disabled, am.role AS assignee_role,
               \(unsafeSQL: taskColumns)
          FROM \(Self.accessFactsFrom(access.actor, team: key.team))
          LEFT JOIN users au ON \(userMatch("au", assignee))
          LEFT JOIN memberships am ON am.team_id = tm.id AND am.user_id = au.id
          LEFT JOIN LATERAL (
              SELECT c0.team_id FROM task_counters c0
               WHERE c0.team_id = tm.id AND m.role IS NOT NULL AND NOT u.disabled
                 AND array_position(\(unsafeSQL: roleRanks), m.role) >= \(rank(access.minimumRole))
                 FOR UPDATE
          ) locked_counter ON true
          LEFT JOIN LATERAL (
              SELECT * FROM tasks t0
               WHERE t0.team_id = tm.id AND t0.number = \(key.number) AND m.role IS NOT NULL AND NOT u.disabled
                 AND array_position(\(unsafeSQL: roleRanks), m.role) >= \(rank(access.minimumRole))
                 FOR UPDATE
          ) t ON true
        """
    }

    public func task(_ key: TaskKey, access: AccessRequirement) async throws -> TaskItem {
        let row = try await statement(as: access.actor, Self.taskRead(key, actor: access.actor))[0]
        try access.verify(AccessFacts(actor: Self.user(in: row), role: Self.role(in: row)), subject: "task \(key)")
        guard let task = try Self.task(in: row, team: key.team) else { throw TaskError.notFound(what: "task \(key)") }
        return task
    }

    /// The point read: the access facts, and the task when the actor may see it. It is the
    /// most frequent statement, so its text is made once for each form of actor
    /// (`MadeOnceText`) and a call binds only the values, in `writtenTaskRead`'s order.
    static func taskRead(_ key: TaskKey, actor: UserRef) -> PGQuery {
        taskReadText.query(UserForm(actor)) {
            writtenTaskRead(key, actor: actor)
        } bind: { query in
            bindUserMatch(actor, to: &query)
            query.bindNext(key.team.rawValue)
            query.bindNext(key.number)
        }
    }

    static let taskReadText = MadeOnceText<UserForm>()

    /// The point read written out: the one source of its text, which `taskRead` reuses (a test
    /// holds the two to the same text and values).
    static func writtenTaskRead(_ key: TaskKey, actor: UserRef) -> PGQuery {
        """
        SELECT \(unsafeSQL: userColumns), m.role, \(unsafeSQL: taskColumns)
          FROM \(accessFactsFrom(actor, team: key.team))
          LEFT JOIN tasks t ON t.team_id = tm.id AND t.number = \(key.number) AND m.role IS NOT NULL AND NOT u.disabled
        """
    }

    public func updateTask(
        _ key: TaskKey, expectedVersion: Int64?, changes: TaskChanges, access: AccessRequirement, at time: Date
    ) async throws -> TaskItem {
        let facts = Self.lockedTaskFacts(key, access, assignee: changes.assigneeToResolve)
        let externalID: String? = if case .set(let id) = changes.externalID { id } else { nil }
        return try await namingExternalIDHolder(externalID, in: key.team, as: access.actor) {
            try await updateTask(key, facts: facts, expectedVersion: expectedVersion, changes: changes, access: access, at: time)
        }
    }

    private func updateTask(
        _ key: TaskKey, facts: PGQuery, expectedVersion: Int64?, changes: TaskChanges, access: AccessRequirement, at time: Date
    ) async throws -> TaskItem {
        try await transaction(as: access.actor) { tx in
            let row = try await tx.query(facts)[0]
            let subject = "task \(key)"
            let actor = try access.verify(AccessFacts(actor: Self.user(in: row), role: Self.role(in: row)), subject: subject)
            guard let old = try Self.task(in: row, team: key.team) else { throw TaskError.notFound(what: subject) }
            if let expectedVersion, expectedVersion != old.version {
                throw TaskError.conflict(what: subject, currentVersion: old.version)
            }
            var assigneeID: UserID?
            if let ref = changes.assigneeToResolve {
                assigneeID = try AssigneeRule.verify(
                    ref, user: Self.assigneeFacts(in: row), role: Self.role(in: row, "assignee_role"), team: key.team)
            }
            let new = old.applying(changes, assigneeID: assigneeID, by: actor.id, at: time)
            guard new != old else { return old }
            do {
                try await Self.save(new, replacing: old, kind: .updated, on: tx)
            } catch let error as PGError where error.code == .foreignKeyViolation && error.constraint == "tasks_assignee_is_member" {
                // The assignee was removed from the team after the facts above were read (the
                // removal held the counter lock this edit waited for): as if they had been
                // read gone.
                throw AssigneeRule.notAMember(changes.assigneeToResolve ?? .id(new.assigneeID ?? UserID(0)), of: key.team)
            }
            return new
        }
    }

    /// Writes `new` over `old` (same team and number), records the change in history and logs
    /// it under the team's next sequence (the counter row is locked by `lockedTaskFacts`).
    static func save(_ new: TaskItem, replacing old: TaskItem, kind: TaskHistoryEntry.Kind, on tx: PGConnection) async throws {
        try await tx.execute(
            """
            WITH t AS (
                UPDATE tasks SET title = \(new.title), notes = \(new.notes), status = \(new.status.rawValue),
                       priority = \(new.priority.rawValue), due_date = \(new.dueDate.map(pgDate)),
                       assignee_id = \(new.assigneeID?.rawValue), category = \(new.category), external_id = \(new.externalID),
                       updated_by = \(new.updatedBy.rawValue), updated_at = \(new.updatedAt), version = \(new.version)
                 WHERE team_id = \(old.teamID.rawValue) AND number = \(old.key.number) AND version = \(old.version)
                RETURNING *
            )
            , history AS (
                INSERT INTO task_history (team_id, task_id, task_number, version, actor_id, changed_at, kind, changes)
                SELECT new.team_id, new.id, new.number, new.version, new.updated_by, new.updated_at, \(kind.rawValue),
                       \(unsafeSQL: historyOfChange)
                  FROM t AS new JOIN tasks old ON old.team_id = new.team_id AND old.number = new.number
            ), counter AS (
                UPDATE task_counters c SET last_change = c.last_change + 1
                 WHERE c.team_id = \(old.teamID.rawValue) AND EXISTS (SELECT 1 FROM t) RETURNING c.last_change
            ), logged AS (
                INSERT INTO task_changes (\(unsafeSQL: changeLogColumns))
                SELECT t.team_id, counter.last_change, 'updated', t.id, t.number, t.version, t.updated_by, t.updated_at
                  FROM t JOIN counter ON true
            )
            SELECT \(doorbellSQL(new.key.team)) FROM t
            """)
    }

    public func deleteTask(_ key: TaskKey, expectedVersion: Int64?, access: AccessRequirement, at time: Date) async throws {
        let facts = Self.lockedTaskFacts(key, access, assignee: nil)
        try await transaction(as: access.actor) { tx in
            let row = try await tx.query(facts)[0]
            let subject = "task \(key)"
            let actor = try access.verify(AccessFacts(actor: Self.user(in: row), role: Self.role(in: row)), subject: subject)
            guard let task = try Self.task(in: row, team: key.team) else { throw TaskError.notFound(what: subject) }
            if let expectedVersion, expectedVersion != task.version {
                throw TaskError.conflict(what: subject, currentVersion: task.version)
            }
            try await tx.execute(
                """
                WITH gone AS (
                    DELETE FROM tasks WHERE team_id = \(task.teamID.rawValue) AND number = \(key.number) RETURNING number, id, version
                ), history AS (
                    INSERT INTO task_history (team_id, task_id, task_number, version, actor_id, changed_at, kind)
                    SELECT \(task.teamID.rawValue), gone.id, gone.number, gone.version, \(actor.id.rawValue), \(time), 'deleted'
                      FROM gone
                ), counter AS (
                    UPDATE task_counters c SET last_change = c.last_change + 1
                     WHERE c.team_id = \(task.teamID.rawValue) AND EXISTS (SELECT 1 FROM gone) RETURNING c.last_change
                ), logged AS (
                    INSERT INTO task_changes (\(unsafeSQL: Self.changeLogColumns))
                    SELECT \(task.teamID.rawValue), counter.last_change, 'deleted', gone.id, gone.number, gone.version,
                           \(actor.id.rawValue), \(time)
                      FROM gone JOIN counter ON true
                )
                SELECT \(Self.doorbellSQL(key.team)) FROM gone
                """)
        }
    }

    /// A page of the task's entries in the order they were written; a cursor's position is the
    /// last entry's row id (the index on team, number and id serves every page alike).
    public func history(of key: TaskKey, _ page: HistoryQuery, access: AccessRequirement) async throws -> HistoryPage {
        let after = page.after?.position ?? 0
        let query: PGQuery = """
            SELECT \(unsafeSQL: Self.userColumns), m.role, t.id AS task_id,
                   (m.role IS NOT NULL AND NOT u.disabled
                    AND EXISTS (SELECT 1 FROM task_history x WHERE x.team_id = tm.id AND x.task_number = \(key.number))) AS has_history,
                   h.id AS entry_id, h.task_id AS entry_task_id, h.version AS entry_version,
                   h.actor_id, h.changed_at, h.kind, h.changes, h.created_values
              FROM \(Self.accessFactsFrom(access.actor, team: key.team))
              LEFT JOIN tasks t ON t.team_id = tm.id AND t.number = \(key.number) AND m.role IS NOT NULL AND NOT u.disabled
              LEFT JOIN task_history h ON h.team_id = tm.id AND h.task_number = \(key.number) AND h.id > \(after)
                                       AND m.role IS NOT NULL AND NOT u.disabled
             ORDER BY h.id
             LIMIT \(Int64(page.limit) + 1)
            """
        let rows = try await statement(as: access.actor, query)
        let subject = "task \(key)"
        try access.verify(AccessFacts(actor: Self.user(in: rows[0]), role: Self.role(in: rows[0])), subject: subject)
        // A deleted task's history is kept (numbers are never reused): found by its number alone.
        guard try rows[0].decode(Int64?.self, "task_id") != nil || rows[0].decode(Bool?.self, "has_history") == true else {
            throw TaskError.notFound(what: subject)
        }
        var entries: [TaskHistoryEntry] = [], last: Int64?
        for row in rows.prefix(page.limit) {
            guard let taskID = try row.decode(Int64?.self, "entry_task_id") else { continue }
            entries.append(
                TaskHistoryEntry(
                    taskID: TaskID(taskID), version: try row.decode(Int64.self, "entry_version"),
                    actorID: UserID(try row.decode(Int64.self, "actor_id")), at: try row.decode(Date.self, "changed_at"),
                    kind: try Self.enumValue(TaskHistoryEntry.Kind.self, row, "kind"), changes: try Self.storedChanges(in: row)))
            last = try row.decode(Int64.self, "entry_id")
        }
        return HistoryPage(entries: entries, nextCursor: rows.count > page.limit ? last.map(HistoryCursor.init(position:)) : nil)
    }
}
