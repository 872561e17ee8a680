import TaskCore

/// One operation of the permission table: `prepare` sets the stage in a fresh team as its
/// owner and returns the act to attempt as each user of the cast.
struct GuardedOperation: Sendable {
    typealias Act = @Sendable (UserRef) async throws -> Void

    let name: String
    let action: TeamAction
    let prepare: @Sendable (ContractFixture, TeamKey) async throws -> Act

    init(_ name: String, _ action: TeamAction, prepare: @escaping @Sendable (ContractFixture, TeamKey) async throws -> Act) {
        self.name = name
        self.action = action
        self.prepare = prepare
    }

    /// What the contract demands for `role` (nil: outsider), or for a disabled user.
    func expectedOutcome(role: Role?, disabled: Bool) -> Outcome {
        if disabled { return .denied }
        guard let role else { return .notFound }
        return role >= action.minimumRole ? .ok : .denied
    }

    /// Every operation a consumer can attempt in a team.
    static let all: [GuardedOperation] = [
        GuardedOperation("read a task", .readTasks) { f, team in
            let task = try await f.makeTask(in: team)
            return { _ = try await f.service.task(task.key, as: $0) }
        },
        GuardedOperation("list tasks", .readTasks) { f, team in
            { _ = try await f.service.listTasks(in: team, as: $0) }
        },
        GuardedOperation("read a task's history", .readTasks) { f, team in
            let task = try await f.makeTask(in: team)
            return { _ = try await f.service.history(of: task.key, as: $0) }
        },
        GuardedOperation("summarise the team", .readTasks) { f, team in
            { _ = try await f.service.summary(of: team, as: $0) }
        },
        GuardedOperation("show the team", .readTasks) { f, team in
            { _ = try await f.service.team(team, as: $0) }
        },
        GuardedOperation("list members", .readTasks) { f, team in
            { _ = try await f.service.members(of: team, as: $0) }
        },
        GuardedOperation("watch changes", .readTasks) { f, team in
            { _ = try await f.service.changes(in: team, as: $0) }
        },
        GuardedOperation("create a task", .writeTasks) { f, team in
            { _ = try await f.service.createTask(in: team, try TaskDraft(title: "New"), as: $0) }
        },
        GuardedOperation("edit a task", .writeTasks) { f, team in
            let task = try await f.makeTask(in: team)
            return { _ = try await f.service.updateTask(task.key, try TaskChanges(title: "Edited"), expectedVersion: task.version, as: $0) }
        },
        GuardedOperation("complete a task", .writeTasks) { f, team in
            let task = try await f.makeTask(in: team)
            return { _ = try await f.service.completeTask(task.key, as: $0) }
        },
        GuardedOperation("reopen a task", .writeTasks) { f, team in
            var fields = TaskDraftFields()
            fields.status = .done
            let task = try await f.makeTask(in: team, fields)
            return { _ = try await f.service.reopenTask(task.key, as: $0) }
        },
        GuardedOperation("assign a task", .writeTasks) { f, team in
            let task = try await f.makeTask(in: team)
            return { _ = try await f.service.assignTask(task.key, to: f.member, as: $0) }
        },
        GuardedOperation("delete a task", .writeTasks) { f, team in
            let task = try await f.makeTask(in: team)
            return { try await f.service.deleteTask(task.key, as: $0) }
        },
        GuardedOperation("import tasks", .writeTasks) { f, team in
            let drafts = [try TaskImportDraft(try TaskDraft(title: "Imported", externalID: "ext-1"))]
            return { _ = try await f.service.importTasks(into: team, policy: .update, drafts: drafts, as: $0) }
        },
        GuardedOperation("add a member", .manageMembers) { f, team in
            let newcomer = try await f.makeUser()
            return { try await f.service.setRole(.viewer, for: newcomer, in: team, as: $0) }
        },
        GuardedOperation("change a member's role", .manageMembers) { f, team in
            { try await f.service.setRole(.member, for: f.viewer, in: team, as: $0) }
        },
        GuardedOperation("remove a member", .manageMembers) { f, team in
            // Someone other than whoever tries: anyone may remove themself (TeamChecks of the
            // session contract).
            let other = try await f.makeUser()
            try await f.service.setRole(.viewer, for: other, in: team, as: f.owner)
            return { try await f.service.removeMember(other, from: team, as: $0) }
        },
        GuardedOperation("rename the team", .manageTeam) { f, team in
            { _ = try await f.service.renameTeam(team, to: "Renamed", as: $0) }
        },
        GuardedOperation("grant the owner role", .manageTeam) { f, team in
            { try await f.service.setRole(.owner, for: f.member, in: team, as: $0) }
        },
        GuardedOperation("delete the team", .manageTeam) { f, team in
            { try await f.service.deleteTeam(team, as: $0) }
        },
    ]
}
