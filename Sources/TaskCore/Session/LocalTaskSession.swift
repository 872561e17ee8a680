/// A session in process: `TaskService` with the actor fixed. What tests, previews and
/// server-side code hand to consumers of `TaskSession`; the HTTP server runs one per request.
public struct LocalTaskSession: TaskSession {
    /// The service every call goes to.
    public let service: TaskService
    /// Who acts.
    public let actor: UserRef

    /// Acts as `actor` through `service`.
    public init(service: TaskService, actor: UserRef) {
        self.service = service
        self.actor = actor
    }

    /// The acting user; a disabled one is `permissionDenied`, an unknown one `notFound`.
    public func me() async throws -> User {
        try await service.enabledActor(actor)
    }

    /// The teams the actor belongs to.
    public func teams() async throws -> [TeamMembership] { try await service.teams(as: actor) }
    /// Creates a team owned by the actor.
    public func createTeam(key: String, name: String) async throws -> Team { try await service.createTeam(key: key, name: name, as: actor) }
    /// One team and the actor's role.
    public func team(_ key: TeamKey) async throws -> TeamMembership { try await service.team(key, as: actor) }
    /// Renames a team.
    public func renameTeam(_ key: TeamKey, to name: String) async throws -> Team { try await service.renameTeam(key, to: name, as: actor) }
    /// Deletes a team.
    public func deleteTeam(_ key: TeamKey) async throws { try await service.deleteTeam(key, as: actor) }
    /// The team's members.
    public func members(of team: TeamKey) async throws -> [Member] { try await service.members(of: team, as: actor) }
    /// Adds a member or changes their role.
    @discardableResult
    public func setRole(_ role: Role, for user: UserRef, in team: TeamKey) async throws -> Member {
        try await service.setRole(role, for: user, in: team, as: actor)
    }
    /// Removes a member.
    @discardableResult
    public func removeMember(_ user: UserRef, from team: TeamKey) async throws -> MemberRemoval {
        try await service.removeMember(user, from: team, as: actor)
    }

    /// Creates a task.
    public func createTask(in team: TeamKey, _ draft: TaskDraft) async throws -> TaskItem { try await service.createTask(in: team, draft, as: actor) }
    /// Reads a task.
    public func task(_ key: TaskKey) async throws -> TaskItem { try await service.task(key, as: actor) }
    /// Edits a task.
    public func updateTask(_ key: TaskKey, _ changes: TaskChanges, expectedVersion: Int64?) async throws -> TaskItem {
        try await service.updateTask(key, changes, expectedVersion: expectedVersion, as: actor)
    }
    /// Deletes a task.
    public func deleteTask(_ key: TaskKey, expectedVersion: Int64?) async throws {
        try await service.deleteTask(key, expectedVersion: expectedVersion, as: actor)
    }
    /// One page of tasks.
    public func listTasks(in team: TeamKey, _ query: TaskQuery) async throws -> TaskPage { try await service.listTasks(in: team, query, as: actor) }
    /// A task's history.
    public func history(of key: TaskKey, _ query: HistoryQuery) async throws -> HistoryPage {
        try await service.history(of: key, query, as: actor)
    }
    /// The team's summary.
    public func summary(of team: TeamKey) async throws -> TeamSummary { try await service.summary(of: team, as: actor) }
    /// The team's changes.
    public func changes(in team: TeamKey, after: Int64?) async throws -> TaskChangeStream {
        try await service.changes(in: team, after: after, as: actor)
    }
}

extension TaskService {
    /// A session acting as `actor`.
    public func session(as actor: UserRef) -> LocalTaskSession {
        LocalTaskSession(service: self, actor: actor)
    }
}
