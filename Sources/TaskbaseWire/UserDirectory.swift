import TaskCore

/// Emails for the user ids tasks, history and changes carry: the team's members first, then
/// one lookup per former member, remembered.
public struct UserDirectory: Sendable {
    /// Every user known so far, by id.
    public private(set) var users: [UserID: User]
    /// Whether `resolve` looks up users the directory does not hold, as the reader may see
    /// them. A directory whose text goes to several readers (a change feed's fan-out) must not:
    /// what one reader may see of a former member another may not, so it names the team's
    /// members only, whom every reader sees alike, and everyone else `#id`.
    public var looksUpOthers = true

    /// A directory of `members`.
    public init(members: [Member]) {
        users = Dictionary(members.map { ($0.user.id, $0.user) }, uniquingKeysWith: { first, _ in first })
    }

    /// A directory of these users, by id (what `users` held, remembered by a cache).
    public init(users: [UserID: User]) {
        self.users = users
    }

    /// The directory of the team's members, as `actor` sees them.
    public static func of(_ team: TeamKey, service: TaskService, as actor: UserRef) async throws -> UserDirectory {
        UserDirectory(members: try await service.members(of: team, as: actor))
    }

    /// Looks up the users among `ids` not yet known (people who left the team), as `reader`
    /// may see them (`UserVisibility`): one `reader` may not see stays `#id`.
    public mutating func resolve(_ ids: some Sequence<UserID>, using service: TaskService, as reader: UserRef) async throws {
        guard looksUpOthers else { return }
        // Each unknown id once, with no set made: a task names at most three users, most
        // often ones the directory already has.
        var unknown: [UserID] = []
        for id in ids where users[id] == nil && !unknown.contains(id) {
            do {
                users[id] = try await service.user(.id(id), as: reader)
            } catch TaskError.notFound {
                unknown.append(id)
            }
        }
    }

    /// Looks up every user a page of tasks names, as `reader` may see them.
    public mutating func resolve(usersOf tasks: [TaskItem], using service: TaskService, as reader: UserRef) async throws {
        try await resolve(tasks.flatMap(Self.userIDs), using: service, as: reader)
    }

    /// The users a task names: its assignee, creator and last editor.
    public static func userIDs(of task: TaskItem) -> [UserID] {
        [task.assigneeID, task.createdBy, task.updatedBy].compactMap(\.self)
    }

    /// The email of `id`, or `#id` when no user has it.
    public func email(_ id: UserID) -> String {
        users[id]?.email ?? "#\(id)"
    }
}
