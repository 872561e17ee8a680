/// Tasks: viewers read, members write.
extension TaskService {
    /// Creates a task in team `team` (members).
    public func createTask(in team: TeamKey, _ draft: TaskDraft, as actor: UserRef) async throws -> TaskItem {
        try await store.createTask(in: team, draft: draft, access: AccessRequirement(actor: actor, action: .writeTasks), at: clock.now())
    }

    /// The task with this key; outsiders get `notFound`, exactly as for a key that does not exist.
    public func task(_ key: TaskKey, as actor: UserRef) async throws -> TaskItem {
        try await store.task(key, access: AccessRequirement(actor: actor, action: .readTasks))
    }

    /// Applies `changes` (members). With `expectedVersion`, a task changed since that version is a
    /// `conflict` carrying the current version, and nothing is written.
    public func updateTask(_ key: TaskKey, _ changes: TaskChanges, expectedVersion: Int64?, as actor: UserRef) async throws -> TaskItem {
        try await store.updateTask(
            key, expectedVersion: expectedVersion, changes: changes,
            access: AccessRequirement(actor: actor, action: .writeTasks), at: clock.now())
    }

    /// Marks the task done (members).
    public func completeTask(_ key: TaskKey, expectedVersion: Int64? = nil, as actor: UserRef) async throws -> TaskItem {
        try await updateTask(key, try TaskChanges(status: .done), expectedVersion: expectedVersion, as: actor)
    }

    /// Puts a done task back to open (members).
    public func reopenTask(_ key: TaskKey, expectedVersion: Int64? = nil, as actor: UserRef) async throws -> TaskItem {
        try await updateTask(key, try TaskChanges(status: .open), expectedVersion: expectedVersion, as: actor)
    }

    /// Assigns the task to a member, or unassigns it with nil (members).
    public func assignTask(_ key: TaskKey, to assignee: UserRef?, expectedVersion: Int64? = nil, as actor: UserRef) async throws -> TaskItem {
        try await updateTask(key, try TaskChanges(assignee: .set(assignee)), expectedVersion: expectedVersion, as: actor)
    }

    /// Deletes the task (members). Its history stays, append-only, and `history(of:)` still
    /// reads it by the key: task numbers are never reused.
    public func deleteTask(_ key: TaskKey, expectedVersion: Int64? = nil, as actor: UserRef) async throws {
        try await store.deleteTask(
            key, expectedVersion: expectedVersion, access: AccessRequirement(actor: actor, action: .writeTasks), at: clock.now())
    }

    /// One page of the team's tasks (anyone in the team). An assignee named by email is
    /// resolved first; an unknown one is a validation error on `assignee`.
    public func listTasks(in team: TeamKey, _ query: TaskQuery = TaskQuery(), as actor: UserRef) async throws -> TaskPage {
        try query.validate()
        var query = query
        if case .user(let ref) = query.assignee, case .email = ref {
            guard let user = try await store.user(ref, as: actor) else {
                throw TaskError.validation(field: "assignee", reason: "no \(ref) exists")
            }
            query.assignee = .user(.id(user.id))
        }
        return try await store.listTasks(in: team, query: query, today: clock.today(), access: AccessRequirement(actor: actor, action: .readTasks))
    }

    /// A page of the task's history, oldest first (anyone in the team), also once the task is
    /// deleted.
    public func history(of key: TaskKey, _ query: HistoryQuery, as actor: UserRef) async throws -> HistoryPage {
        try query.validate()
        return try await store.history(of: key, query, access: AccessRequirement(actor: actor, action: .readTasks))
    }

    /// The task's whole history, oldest first (anyone in the team), read page by page.
    public func history(of key: TaskKey, as actor: UserRef) async throws -> [TaskHistoryEntry] {
        try await HistoryPage.all { try await history(of: key, $0, as: actor) }
    }

    /// The team's summary as of today (anyone in the team): counted by the store in one read,
    /// never by fetching the tasks.
    public func summary(of team: TeamKey, as actor: UserRef) async throws -> TeamSummary {
        let access = try await access(team, .readTasks, as: actor)
        let members = try await store.members(of: access.team.id, actor: access.actor.id)
        let counts = try await store.taskCounts(in: team, today: clock.today(), access: AccessRequirement(actor: actor, action: .readTasks))
        return TeamSummary(team: access.team, counts: counts, members: members)
    }

    /// The team's changes by anyone (anyone in the team): those logged after `after`, then
    /// live; nil starts from now. See `TaskChangeFeed.changes(in:after:access:)`.
    public func changes(in team: TeamKey, after: Int64?, as actor: UserRef) async throws -> TaskChangeStream {
        try await store.changes(in: team, after: after, access: AccessRequirement(actor: actor, action: .readTasks))
    }

    /// One read of the team's change log after `position` (anyone in the team), with who may
    /// read the team as of the same read. See `TaskChangeFeed.changeLog(in:after:limit:access:)`.
    public func changeLog(in team: TeamKey, after position: Int64, limit: Int, as actor: UserRef) async throws -> ChangeLogRead {
        try await store.changeLog(in: team, after: position, limit: limit, access: AccessRequirement(actor: actor, action: .readTasks))
    }

    /// The team's doorbell (anyone in the team), for a fan-out that reads the log once per ring
    /// for many watchers. See `TaskChangeFeed.doorbell(of:)`.
    public func doorbell(of team: TeamKey, as actor: UserRef) async throws -> TeamDoorbell {
        _ = try await access(team, .readTasks, as: actor)
        return try await store.doorbell(of: team)
    }

    /// The team's live changes from now on (anyone in the team).
    public func changes(in team: TeamKey, as actor: UserRef) async throws -> TaskChangeStream {
        try await changes(in: team, after: nil, as: actor)
    }

    /// Merges batches of drafts into the team by external id (members), all or nothing; with
    /// `dryRun`, reports what the import would do and writes nothing.
    public func importTasks<Batches: AsyncSequence & Sendable>(
        into team: TeamKey, policy: ImportConflictPolicy, dryRun: Bool = false, batches: Batches, as actor: UserRef
    ) async throws -> ImportSummary where Batches.Element == [TaskImportDraft] {
        try await store.importTasks(
            into: team, policy: policy, dryRun: dryRun, batches: batches,
            access: AccessRequirement(actor: actor, action: .writeTasks), at: clock.now())
    }

    /// Merges one batch of drafts into the team by external id (members), all or nothing.
    public func importTasks(
        into team: TeamKey, policy: ImportConflictPolicy, dryRun: Bool = false, drafts: [TaskImportDraft], as actor: UserRef
    ) async throws -> ImportSummary {
        try await importTasks(
            into: team, policy: policy, dryRun: dryRun,
            batches: AsyncStream {
                $0.yield(drafts); $0.finish()
            }, as: actor)
    }
}
