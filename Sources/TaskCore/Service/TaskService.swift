/// The one entry consumers use. Every team and task operation names its acting user;
/// the permission model and validation are decided here (and in the TaskCore types it
/// hands to stores), never in a store or a program.
public struct TaskService: Sendable {
    /// The storage behind the service; consumers go through the service, never around it.
    let store: any TaskStore
    /// Now and today.
    public let clock: TaskClock

    /// A service over `store`, timing changes with `clock`.
    public init(store: any TaskStore, clock: TaskClock = .system) {
        self.store = store
        self.clock = clock
    }

    /// The user `ref` names as `actor` sees them, or `notFound`.
    func existingUser(_ ref: UserRef, as actor: UserRef?) async throws -> User {
        guard let user = try await store.user(ref, as: actor) else { throw TaskError.unknownUser(ref) }
        return user
    }

    /// The actor `ref` names when they exist and are enabled (looked up as themself).
    func enabledActor(_ ref: UserRef) async throws -> User {
        try AccessRequirement.enabledActor(try await store.user(ref, as: ref), named: ref)
    }

    /// Passes `action` by `actor` in team `team`.
    func access(_ team: TeamKey, _ action: TeamAction, as actor: UserRef) async throws -> TeamAccess {
        try await store.teamAccess(team, access: AccessRequirement(actor: actor, action: action))
    }
}

extension TaskService {
    /// Refuses unless `actor` may do `action` in team `team` (`notFound` for outsiders,
    /// `permissionDenied` for a role too low), for callers that must know before they begin, such
    /// as an import over HTTP that should not read a body it may not write.
    public func requireAccess(_ action: TeamAction, in team: TeamKey, as actor: UserRef) async throws {
        _ = try await access(team, action, as: actor)
    }
}
