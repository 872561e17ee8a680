/// Taskbase as one signed-in user sees it: every team and task operation of `TaskService`,
/// with the actor fixed when the session is made. Consumers (view models, apps, integrations)
/// depend on this, never on a store or a transport, so the same code runs in process
/// (`LocalTaskSession`) and over HTTP (`TaskbaseClient`). Every refusal of the service is a
/// `TaskError`, save one: over HTTP a disabled user's token is refused (401) without naming the
/// account's state, which `TaskbaseClient` reports as its `unauthorized` error.
public protocol TaskSession: Sendable {
    /// The acting user; a disabled one is `permissionDenied` (over HTTP, the client's
    /// `unauthorized`).
    func me() async throws -> User

    /// The teams the actor belongs to, with their role in each.
    func teams() async throws -> [TeamMembership]
    /// Creates team `key` (uppercased) with the actor as its first owner.
    func createTeam(key: String, name: String) async throws -> Team
    /// One team and the actor's role in it.
    func team(_ key: TeamKey) async throws -> TeamMembership
    /// Renames a team (owners).
    func renameTeam(_ key: TeamKey, to name: String) async throws -> Team
    /// Deletes a team with all its tasks (owners).
    func deleteTeam(_ key: TeamKey) async throws
    /// The team's members, by email (anyone in the team).
    func members(of team: TeamKey) async throws -> [Member]
    /// Adds `user` with `role` or changes their role (admins; owners for the owner role).
    @discardableResult
    func setRole(_ role: Role, for user: UserRef, in team: TeamKey) async throws -> Member
    /// Removes `user` from the team (admins; owners to remove an owner; anyone themself),
    /// saying how many of their tasks in the team it unassigned.
    @discardableResult
    func removeMember(_ user: UserRef, from team: TeamKey) async throws -> MemberRemoval

    /// Creates a task in the team (members).
    func createTask(in team: TeamKey, _ draft: TaskDraft) async throws -> TaskItem
    /// The task with this key; outsiders get `notFound`, as for a key that does not exist.
    func task(_ key: TaskKey) async throws -> TaskItem
    /// Applies `changes` (members); a stale `expectedVersion` is `conflict` and writes nothing.
    func updateTask(_ key: TaskKey, _ changes: TaskChanges, expectedVersion: Int64?) async throws -> TaskItem
    /// Deletes the task (members), keeping its history, if still at `expectedVersion` when given.
    func deleteTask(_ key: TaskKey, expectedVersion: Int64?) async throws
    /// One page of the team's tasks (anyone in the team).
    func listTasks(in team: TeamKey, _ query: TaskQuery) async throws -> TaskPage
    /// A page of the task's history, oldest first (anyone in the team), also of a deleted task.
    func history(of key: TaskKey, _ query: HistoryQuery) async throws -> HistoryPage
    /// The team's summary as of the service's today (anyone in the team).
    func summary(of team: TeamKey) async throws -> TeamSummary
    /// The team's changes, by anyone (anyone in the team): with `after: nil` those committed
    /// after this returns; with `after: n` first every logged change above sequence `n`, or a
    /// `resync` when the log no longer reaches back that far. Removal from the team ends it.
    func changes(in team: TeamKey, after: Int64?) async throws -> TaskChangeStream
}

/// The shorthands `TaskService` offers, for every session.
extension TaskSession {
    /// The first page of the team's tasks in number order.
    public func listTasks(in team: TeamKey) async throws -> TaskPage {
        try await listTasks(in: team, TaskQuery())
    }

    /// The team's changes from now on.
    public func changes(in team: TeamKey) async throws -> TaskChangeStream {
        try await changes(in: team, after: nil)
    }

    /// Marks the task done (members).
    public func completeTask(_ key: TaskKey, expectedVersion: Int64? = nil) async throws -> TaskItem {
        try await updateTask(key, try TaskChanges(status: .done), expectedVersion: expectedVersion)
    }

    /// Puts a done task back to open (members).
    public func reopenTask(_ key: TaskKey, expectedVersion: Int64? = nil) async throws -> TaskItem {
        try await updateTask(key, try TaskChanges(status: .open), expectedVersion: expectedVersion)
    }

    /// Assigns the task to a member, or unassigns it with nil (members).
    public func assignTask(_ key: TaskKey, to assignee: UserRef?, expectedVersion: Int64? = nil) async throws -> TaskItem {
        try await updateTask(key, try TaskChanges(assignee: .set(assignee)), expectedVersion: expectedVersion)
    }

    /// Deletes the task whatever its version (members).
    public func deleteTask(_ key: TaskKey) async throws {
        try await deleteTask(key, expectedVersion: nil)
    }

    /// The task's whole history, oldest first (anyone in the team), page after page.
    public func history(of key: TaskKey) async throws -> [TaskHistoryEntry] {
        try await HistoryPage.all { try await history(of: key, $0) }
    }

    /// Every task matching `query`, page after page (`query.after` is where it starts).
    public func allTasks(in team: TeamKey, _ query: TaskQuery = TaskQuery(limit: TaskQuery.limitRange.upperBound)) async throws -> [TaskItem] {
        var query = query, tasks: [TaskItem] = []
        repeat {
            let page = try await listTasks(in: team, query)
            tasks += page.tasks
            query.after = page.nextCursor
        } while query.after != nil
        return tasks
    }
}
