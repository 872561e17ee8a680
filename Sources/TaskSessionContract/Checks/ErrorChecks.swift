import TaskCore
import TaskStoreContract
import Testing

extension TaskSessionContract {
    static let errorChecks: [SessionCheck] = [
        SessionCheck("every refusal through a session is the very TaskError the service gives, text and values alike") { f in
            let task = try await f.makeTask("Target")
            _ = try await f.member.session.updateTask(task.key, try TaskChanges(notes: "moved on"), expectedVersion: 1)
            let missing = TaskKey(team: f.team, number: task.key.number + 100)
            let stranger = try await f.makePerson()
            let lone = try await f.owner.session.createTeam(key: "L" + f.uniqueSuffix(), name: "Lone").key
            let cases: [(String, SessionFixture.Person, @Sendable (any TaskSession) async throws -> Void)] = [
                ("an outsider reads a task", f.outsider, { _ = try await $0.task(task.key) }),
                ("an outsider reads a missing task", f.outsider, { _ = try await $0.task(missing) }),
                ("a member reads a missing task", f.member, { _ = try await $0.task(missing) }),
                ("an outsider lists the team", f.outsider, { _ = try await $0.listTasks(in: f.team) }),
                ("a viewer creates a task", f.viewer, { _ = try await $0.createTask(in: f.team, try TaskDraft(title: "No")) }),
                ("a member renames the team", f.member, { _ = try await $0.renameTeam(f.team, to: "No") }),
                ("an admin grants the owner role", f.admin, { try await $0.setRole(.owner, for: f.member.ref, in: f.team) }),
                ("a stale edit", f.member, { _ = try await $0.updateTask(task.key, try TaskChanges(title: "Stale"), expectedVersion: 1) }),
                ("a stale delete", f.member, { try await $0.deleteTask(task.key, expectedVersion: 1) }),
                ("a taken team key", f.owner, { _ = try await $0.createTeam(key: f.team.description, name: "Again") }),
                ("a bad team key", f.owner, { _ = try await $0.createTeam(key: "no spaces", name: "Bad") }),
                ("an assignee outside the team", f.member, { _ = try await $0.assignTask(task.key, to: stranger.ref) }),
                (
                    "an unknown assignee filter", f.member,
                    { _ = try await $0.listTasks(in: f.team, TaskQuery(assignee: .user(.email("nobody@example.com")))) }
                ),
                ("a page too large", f.member, { _ = try await $0.listTasks(in: f.team, TaskQuery(limit: 5000)) }),
                ("the last owner leaving", f.owner, { try await $0.removeMember(f.owner.ref, from: lone) }),
                ("removing someone not in the team", f.owner, { try await $0.removeMember(stranger.ref, from: f.team) }),
                ("a role for an unknown user", f.owner, { try await $0.setRole(.viewer, for: .email("nobody@example.com"), in: f.team) }),
            ]
            if f.disabledRefusal == .denied {
                #expect(
                    await thrown { _ = try await f.disabled.session.listTasks(in: f.team) }
                        == (await thrown { _ = try await f.service.listTasks(in: f.team, as: f.disabled.ref) }))
            }
            for (name, person, act) in cases {
                let viaSession = await Self.thrown { try await act(person.session) }
                let viaService = await Self.thrown { try await act(f.service.session(as: person.ref)) }
                #expect(viaSession != nil, "\(name): no error")
                #expect(viaSession == viaService, "\(name)")
            }
        },
        SessionCheck("an outsider cannot tell an existing task or team from a missing one") { f in
            let task = try await f.makeTask()
            let missing = TaskKey(team: f.team, number: task.key.number + 100)
            let unknownTeam = try TeamKey("Q" + f.uniqueSuffix())
            #expect(await thrown { _ = try await f.outsider.session.task(task.key) } == .notFound(what: "task \(task.key)"))
            #expect(await thrown { _ = try await f.outsider.session.task(missing) } == .notFound(what: "task \(missing)"))
            #expect(await thrown { _ = try await f.outsider.session.listTasks(in: f.team) } == .notFound(what: "team \(f.team)"))
            #expect(await thrown { _ = try await f.outsider.session.listTasks(in: unknownTeam) } == .notFound(what: "team \(unknownTeam)"))
        },
    ]

    /// The `TaskError` `body` throws; nil when it succeeds. Any other error fails the check.
    static func thrown(_ body: () async throws -> Void) async -> TaskError? {
        do {
            try await body()
            return nil
        } catch let error as TaskError {
            return error
        } catch {
            Issue.record("not a TaskError: \(error)")
            return nil
        }
    }
}
