import TaskCore
import TaskStoreContract
import Testing

/// One session operation of the permission table: `prepare` sets the stage in a fresh team
/// as its owner and returns the act to attempt with each person's session.
struct SessionOperation: Sendable {
    typealias Act = @Sendable (any TaskSession) async throws -> Void

    let name: String
    let action: TeamAction
    let prepare: @Sendable (SessionFixture, TeamKey) async throws -> Act

    init(_ name: String, _ action: TeamAction, prepare: @escaping @Sendable (SessionFixture, TeamKey) async throws -> Act) {
        self.name = name
        self.action = action
        self.prepare = prepare
    }

    /// Every team operation a session offers.
    static let all: [SessionOperation] = [
        SessionOperation("read a task", .readTasks) { f, team in
            let task = try await f.makeTask(in: team)
            return { _ = try await $0.task(task.key) }
        },
        SessionOperation("list tasks", .readTasks) { _, team in { _ = try await $0.listTasks(in: team) } },
        SessionOperation("read a task's history", .readTasks) { f, team in
            let task = try await f.makeTask(in: team)
            return { _ = try await $0.history(of: task.key) }
        },
        SessionOperation("summarise the team", .readTasks) { _, team in { _ = try await $0.summary(of: team) } },
        SessionOperation("show the team", .readTasks) { _, team in { _ = try await $0.team(team) } },
        SessionOperation("list members", .readTasks) { _, team in { _ = try await $0.members(of: team) } },
        SessionOperation("watch changes", .readTasks) { _, team in { _ = try await $0.changes(in: team) } },
        SessionOperation("create a task", .writeTasks) { _, team in { _ = try await $0.createTask(in: team, try TaskDraft(title: "New")) } },
        SessionOperation("edit a task", .writeTasks) { f, team in
            let task = try await f.makeTask(in: team)
            return { _ = try await $0.updateTask(task.key, try TaskChanges(title: "Edited"), expectedVersion: task.version) }
        },
        SessionOperation("assign a task", .writeTasks) { f, team in
            let task = try await f.makeTask(in: team)
            return { _ = try await $0.assignTask(task.key, to: f.member.ref) }
        },
        SessionOperation("delete a task", .writeTasks) { f, team in
            let task = try await f.makeTask(in: team)
            return { try await $0.deleteTask(task.key, expectedVersion: task.version) }
        },
        SessionOperation("add a member", .manageMembers) { f, team in
            let newcomer = try await f.makePerson()
            return { try await $0.setRole(.viewer, for: newcomer.address, in: team) }
        },
        SessionOperation("change a member's role", .manageMembers) { f, team in { try await $0.setRole(.member, for: f.viewer.ref, in: team) } },
        SessionOperation("remove a member", .manageMembers) { f, team in
            // Someone other than whoever tries: anyone may remove themself (TeamChecks).
            let other = try await f.makePerson()
            try await f.owner.session.setRole(.viewer, for: other.address, in: team)
            return { try await $0.removeMember(other.ref, from: team) }
        },
        SessionOperation("rename the team", .manageTeam) { _, team in { _ = try await $0.renameTeam(team, to: "Renamed") } },
        SessionOperation("grant the owner role", .manageTeam) { f, team in { try await $0.setRole(.owner, for: f.member.ref, in: team) } },
        SessionOperation("delete the team", .manageTeam) { _, team in { try await $0.deleteTeam(team) } },
    ]
}

extension TaskSessionContract {
    static let permissionChecks: [SessionCheck] = [
        SessionCheck("every role, outsider and disabled user gets exactly its due for every session operation, and a refusal writes nothing") { f in
            for operation in SessionOperation.all {
                for person in f.cast {
                    let team = try await f.makeTeam()
                    let act = try await operation.prepare(f, team)
                    let tasksBefore = try await f.owner.session.allTasks(in: team)
                    let membersBefore = try await f.owner.session.members(of: team)
                    let isDisabled = person.user.id == f.disabled.user.id
                    let expected: Outcome =
                        isDisabled ? f.disabledRefusal : person.role.map { $0 >= operation.action.minimumRole ? .ok : .denied } ?? .notFound
                    let outcome = await Outcome.of { try await act(person.session) }
                    #expect(outcome == expected, "\(operation.name) as \(isDisabled ? "disabled user" : person.role?.rawValue ?? "outsider")")
                    if outcome != .ok {
                        #expect(try await f.owner.session.allTasks(in: team) == tasksBefore, "\(operation.name) refused but tasks changed")
                        #expect(try await f.owner.session.members(of: team) == membersBefore, "\(operation.name) refused but members changed")
                    }
                }
            }
        },
        SessionCheck("a session acts as its own user only: me, teams and authorship are that user's") { f in
            #expect(try await f.member.session.me() == f.member.user)
            #expect(try await f.outsider.session.teams().isEmpty)
            let memberships = try await f.viewer.session.teams()
            #expect(memberships.map(\.team.key) == [f.team] && memberships.map(\.role) == [.viewer])
            let task = try await f.member.session.createTask(in: f.team, try TaskDraft(title: "Mine"))
            #expect(task.createdBy == f.member.user.id && task.updatedBy == f.member.user.id)
            let team = try await f.outsider.session.createTeam(key: "O" + f.uniqueSuffix(), name: "Own")
            #expect(try await f.outsider.session.team(team.key) == TeamMembership(team: team, role: .owner))
            #expect(await Outcome.of { _ = try await f.disabled.session.me() } == f.disabledRefusal)
            #expect(await Outcome.of { _ = try await f.disabled.session.createTeam(key: "D" + f.uniqueSuffix(), name: "D") } == f.disabledRefusal)
        },
        SessionCheck("disabling a user refuses their open session at once (within the host's revocation delay), and enabling restores it") { f in
            let extra = try await f.makePerson()
            try await f.owner.session.setRole(.member, for: extra.address, in: f.team)
            _ = try await extra.session.listTasks(in: f.team)
            _ = try await f.service.setUserDisabled(extra.ref, true)
            let deadline = ContinuousClock.now + f.host.revocationDelay
            var outcome = await Outcome.of { _ = try await extra.session.listTasks(in: f.team) }
            while outcome != f.disabledRefusal, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
                outcome = await Outcome.of { _ = try await extra.session.listTasks(in: f.team) }
            }
            #expect(outcome == f.disabledRefusal)
            _ = try await f.service.setUserDisabled(extra.ref, false)
            #expect(await Outcome.of { _ = try await extra.session.listTasks(in: f.team) } == .ok)
        },
    ]
}
