import TaskCore
import TaskStoreContract
import Testing

extension TaskSessionContract {
    static let userRefChecks: [SessionCheck] = [
        SessionCheck("a user named by an email that reads like an id, by no email or by an impossible id, and a feed after -1, answer as in process")
        { f in
            let task = try await f.makeTask("Target")
            let id = f.member.user.id.rawValue
            let lone = try await f.owner.session.createTeam(key: "L" + f.uniqueSuffix(), name: "Lone").key
            // Emails that name nobody (every stored address has an @), which the server once
            // read as the id they spell: the member, whom they must never reach.
            let nobody: [UserRef] = [.email("\(id)"), .email("#\(id)"), .email(" \(id) "), .email(""), .email("a\u{0}b@example.com")]
            var cases: [RefCase] = []
            for ref in nobody {
                cases.append(RefCase("the owner removes \(ref)", f.owner) { try await $0.removeMember(ref, from: f.team) })
                cases.append(RefCase("a member removes \(ref)", f.member) { try await $0.removeMember(ref, from: f.team) })
                cases.append(RefCase("an outsider removes \(ref)", f.outsider) { try await $0.removeMember(ref, from: f.team) })
                cases.append(RefCase("the owner makes \(ref) a viewer", f.owner) { try await $0.setRole(.viewer, for: ref, in: f.team).user.email })
                cases.append(RefCase("an admin makes \(ref) an owner", f.admin) { try await $0.setRole(.owner, for: ref, in: f.team).user.email })
                cases.append(RefCase("a member assigns \(ref)", f.member) { try await $0.assignTask(task.key, to: ref).assignee })
                cases.append(
                    RefCase("a member creates a task for \(ref)", f.member) {
                        try await $0.createTask(in: f.team, try TaskDraft(title: "For", assignee: ref)).assignee
                    })
                cases.append(
                    RefCase("a member lists \(ref)'s tasks", f.member) { try await $0.listTasks(in: f.team, TaskQuery(assignee: .user(ref))).keys })
                cases.append(
                    RefCase("an outsider lists \(ref)'s tasks", f.outsider) { try await $0.listTasks(in: lone, TaskQuery(assignee: .user(ref))).keys }
                )
            }
            for ref in [UserRef.id(UserID(0)), .id(UserID(-1))] {
                cases.append(
                    RefCase("a member lists \(ref)'s tasks", f.member) { try await $0.listTasks(in: f.team, TaskQuery(assignee: .user(ref))).keys })
                cases.append(
                    RefCase("an outsider lists \(ref)'s tasks", f.outsider) { try await $0.listTasks(in: lone, TaskQuery(assignee: .user(ref))).keys }
                )
                cases.append(RefCase("the owner removes \(ref)", f.owner) { try await $0.removeMember(ref, from: f.team) })
            }
            cases.append(
                RefCase("a member follows changes after -1", f.member) {
                    _ = try await $0.changes(in: f.team, after: -1)
                    return "open"
                })
            for check in cases {
                let viaSession = await Self.answer { try await check.act(check.person.session) }
                let viaService = await Self.answer { try await check.act(f.service.session(as: check.person.ref)) }
                #expect(viaSession == viaService, "\(check.name)")
            }
            // None of it reached the member the emails spell.
            #expect(try await f.service.members(of: f.team, as: f.owner.ref).first { $0.user.id == f.member.user.id }?.role == .member)
            #expect(try await f.service.task(task.key, as: f.owner.ref).assigneeID == nil)
        }
    ]

    /// What `body` answered, or the `TaskError` it threw, as text (a NUL as `\0`, which a
    /// test report would cut the line at); any other error as itself.
    static func answer(_ body: () async throws -> String) async -> String {
        let text: String
        do {
            text = "ok: " + (try await body())
        } catch let error as TaskError {
            text = "refused: \(error)"
        } catch {
            text = "failed: \(error)"
        }
        return text.replacingOccurrences(of: "\u{0}", with: "\\0")
    }
}

/// One call of `userRefChecks`, made as `person`; what it answers, as text.
private struct RefCase: Sendable {
    let name: String
    let person: SessionFixture.Person
    let act: @Sendable (any TaskSession) async throws -> String

    init(_ name: String, _ person: SessionFixture.Person, _ act: @escaping @Sendable (any TaskSession) async throws -> Any) {
        self.name = name
        self.person = person
        self.act = { "\(try await act($0))" }
    }
}

extension TaskPage {
    fileprivate var keys: String { "\(tasks.map(\.key)) \(nextCursor != nil)" }
}

extension TaskItem {
    fileprivate var assignee: String { assigneeID?.description ?? "nobody" }
}
