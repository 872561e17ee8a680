import TaskCore
import Testing

extension TaskStoreContract {
    static let validationChecks: [ContractCheck] = [
        ContractCheck("every invalid input is a validation error naming its field, and writes nothing") { f in
            let task = try await f.makeTask("Keep me", TaskDraftFields())
            let stranger = UserRef.email("nobody.\(f.uniqueSuffix().lowercased())@example.com")
            let service = f.service
            let cases: [(String, @Sendable () async throws -> Void)] = [
                ("title", { _ = try await service.createTask(in: f.team, try TaskDraft(title: "   "), as: f.member) }),
                ("title", { _ = try await service.createTask(in: f.team, try TaskDraft(title: String(repeating: "x", count: 501)), as: f.member) }),
                ("title", { _ = try await service.updateTask(task.key, try TaskChanges(title: "\n\t"), expectedVersion: nil, as: f.member) }),
                (
                    "notes",
                    {
                        _ = try await service.createTask(
                            in: f.team, try TaskDraft(title: "T", notes: String(repeating: "n", count: 10_001)), as: f.member)
                    }
                ),
                ("category", { _ = try await service.createTask(in: f.team, try TaskDraft(title: "T", category: "two\nlines"), as: f.member) }),
                (
                    "category",
                    {
                        _ = try await service.createTask(
                            in: f.team, try TaskDraft(title: "T", category: String(repeating: "c", count: 101)), as: f.member)
                    }
                ),
                (
                    "externalID",
                    {
                        _ = try await service.createTask(
                            in: f.team, try TaskDraft(title: "T", externalID: String(repeating: "e", count: 201)), as: f.member)
                    }
                ),
                (
                    "dueDate",
                    {
                        _ = try await service.createTask(
                            in: f.team, try TaskDraft(title: "T", dueDate: try CalendarDate(iso: "2026-02-30")), as: f.member)
                    }
                ),
                (
                    "dueDate",
                    {
                        _ = try await service.createTask(
                            in: f.team, try TaskDraft(title: "T", dueDate: try CalendarDate(iso: "next week")), as: f.member)
                    }
                ),
                (
                    "status",
                    {
                        _ = try await service.createTask(
                            in: f.team, try TaskDraft(title: "T", status: try TaskStatus(parsing: "finished")), as: f.member)
                    }
                ),
                (
                    "priority",
                    {
                        _ = try await service.createTask(
                            in: f.team, try TaskDraft(title: "T", priority: try TaskPriority(parsing: "p1")), as: f.member)
                    }
                ),
                ("assignee", { _ = try await service.createTask(in: f.team, try TaskDraft(title: "T", assignee: f.outsider), as: f.member) }),
                ("assignee", { _ = try await service.createTask(in: f.team, try TaskDraft(title: "T", assignee: stranger), as: f.member) }),
                ("assignee", { _ = try await service.createTask(in: f.team, try TaskDraft(title: "T", assignee: f.disabled), as: f.member) }),
                ("assignee", { _ = try await service.assignTask(task.key, to: f.outsider, as: f.member) }),
                ("assignee", { _ = try await service.listTasks(in: f.team, TaskQuery(assignee: .user(stranger)), as: f.member) }),
                ("limit", { _ = try await service.listTasks(in: f.team, TaskQuery(limit: 0), as: f.member) }),
                ("limit", { _ = try await service.listTasks(in: f.team, TaskQuery(limit: 1001), as: f.member) }),
                ("cursor", { _ = try await service.listTasks(in: f.team, TaskQuery(after: try TaskCursor(encoded: "garbage")), as: f.member) }),
                (
                    "cursor",
                    {
                        _ = try await service.listTasks(
                            in: f.team, TaskQuery(sort: .due, after: TaskCursor(after: task, sort: .number, descending: false)), as: f.member)
                    }
                ),
                ("task", { _ = try await service.task(try TaskKey(parsing: "CORE42"), as: f.member) }),
                ("key", { _ = try await service.createTeam(key: "core team", name: "Core", as: f.owner) }),
                ("name", { _ = try await service.createTeam(key: "N" + f.uniqueSuffix(), name: " ", as: f.owner) }),
                ("email", { _ = try await service.createUser(email: "not-an-email", displayName: "X") }),
                ("name", { _ = try await service.createUser(email: "x.\(f.uniqueSuffix().lowercased())@example.com", displayName: "") }),
                ("role", { try await service.setRole(try Role(parsing: "boss"), for: f.outsider, in: f.team, as: f.owner) }),
                ("onConflict", { _ = try ImportConflictPolicy(parsing: "merge") }),
                ("externalID", { _ = try TaskImportDraft(try TaskDraft(title: "No id")) }),
            ]
            for (field, attempt) in cases {
                #expect(await Outcome.of(attempt) == .invalid(field: field))
            }
            #expect(try await f.allTasks() == [task])
            #expect(try await f.service.members(of: f.team, as: f.owner).count == 5)
        },
        ContractCheck("an assignee is judged as far as the actor may see, and a refusal names them only as the caller wrote them") { f in
            let outsider = try await f.service.user(f.outsider), disabled = try await f.service.user(f.disabled)
            func refusal(_ ref: UserRef, as actor: UserRef) async -> String {
                do {
                    _ = try await f.service.createTask(in: f.team, try TaskDraft(title: "T", assignee: ref), as: actor)
                    return "(accepted)"
                } catch TaskError.validation(let field, let reason) {
                    return "\(field): \(reason)"
                } catch {
                    return "\(error)"
                }
            }
            // Anyone outside the team is "not a member", in the caller's words: a user the actor
            // does not see, one with no account at all, and a team mate from elsewhere alike, so
            // the refusal tells nobody whether an id or an address has an account.
            let typed = outsider.email.uppercased()
            func everyOutsiderIsNoMember() async {
                for actor in [f.member, f.admin] {
                    for ref in [UserRef.id(outsider.id), .id(UserID(Int64.max)), .email(typed), .email("nobody.\(f.uniqueSuffix())@example.com")] {
                        #expect(await refusal(ref, as: actor) == "assignee: \(ref.written) is not a member of team \(f.team)")
                    }
                }
            }
            await everyOutsiderIsNoMember()
            let elsewhere = try await f.service.createTeam(key: "E" + f.uniqueSuffix(), name: "Elsewhere", as: f.admin).key
            try await f.service.setRole(.viewer, for: .email(outsider.email), in: elsewhere, as: f.admin)
            await everyOutsiderIsNoMember()
            #expect(await refusal(.id(disabled.id), as: f.member) == "assignee: #\(disabled.id) is disabled")
            #expect(try await f.allTasks().isEmpty, "nothing was made")
        },
        ContractCheck("a title of exactly 500 characters after trimming is accepted and stored trimmed") { f in
            let title = String(repeating: "t", count: 500)
            let task = try await f.service.createTask(
                in: f.team, try TaskDraft(title: "  \(title)\n", category: "  ", externalID: " x-1 "), as: f.member)
            #expect(task.title == title)
            #expect(task.category == nil)
            #expect(task.externalID == "x-1")
        },
        ContractCheck("an external id is unique within a team but may repeat across teams") { f in
            try await f.makeTask("First", TaskDraftFields(externalID: "dup"))
            let second = try await f.makeTask("Second")
            #expect(await Outcome.of { try await f.makeTask("Again", TaskDraftFields(externalID: "dup")) } == .alreadyExists)
            #expect(
                await Outcome.of {
                    _ = try await f.service.updateTask(second.key, try TaskChanges(externalID: .set("dup")), expectedVersion: nil, as: f.member)
                } == .alreadyExists)
            #expect(await Outcome.of { try await f.makeTask("Elsewhere", in: try await f.makeTeam(), TaskDraftFields(externalID: "dup")) } == .ok)
            #expect(try await f.allTasks().map(\.title) == ["First", "Second"])
        },
        ContractCheck("a taken external id is refused naming the id, the team and the task that holds it") { f in
            let first = try await f.makeTask("First", TaskDraftFields(externalID: "dup"))
            let second = try await f.makeTask("Second")
            let expected = TaskError.externalIDTaken("dup", in: f.team, by: first.key)
            #expect(expected.description == "external id \"dup\" in team \(f.team) (task \(first.key)) already exists")
            await #expect(throws: expected) { try await f.makeTask("Again", TaskDraftFields(externalID: "dup")) }
            await #expect(throws: expected) {
                _ = try await f.service.updateTask(second.key, try TaskChanges(externalID: .set("dup")), expectedVersion: nil, as: f.member)
            }
        },
    ]
}
