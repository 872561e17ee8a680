import TaskCore
import Testing

extension TaskStoreContract {
    static let historyChecks: [ContractCheck] = [
        ContractCheck("history records actor, time, version and each changed field's old and new value") { f in
            let created = try await f.makeTask("Draft", TaskDraftFields(priority: .low, category: "Ops"))
            let owner = try await f.service.user(f.owner).id, member = try await f.service.user(f.member).id
            let edited = try await f.service.updateTask(
                created.key, try TaskChanges(title: "Final", priority: .high, dueDate: .set(ContractFixture.today), category: .set(nil)),
                expectedVersion: 1, as: f.member)
            let assigned = try await f.service.assignTask(created.key, to: f.admin, as: f.member)
            let done = try await f.service.completeTask(created.key, as: f.admin)
            let admin = try await f.service.user(f.admin).id
            let history = try await f.service.history(of: created.key, as: f.viewer)
            #expect(history.map(\.kind) == [.created, .updated, .updated, .updated])
            #expect(history.map(\.version) == [1, 2, 3, 4])
            #expect(history.map(\.actorID) == [owner, member, member, admin])
            #expect(history.map(\.at) == [created.createdAt, edited.updatedAt, assigned.updatedAt, done.updatedAt])
            #expect(
                history[0].changes == [
                    FieldChange(field: .title, old: nil, new: "Draft"),
                    FieldChange(field: .status, old: nil, new: "open"),
                    FieldChange(field: .priority, old: nil, new: "low"),
                    FieldChange(field: .category, old: nil, new: "Ops"),
                ])
            #expect(
                history[1].changes == [
                    FieldChange(field: .title, old: "Draft", new: "Final"),
                    FieldChange(field: .priority, old: "low", new: "high"),
                    FieldChange(field: .dueDate, old: nil, new: "2026-03-10"),
                    FieldChange(field: .category, old: "Ops", new: nil),
                ])
            #expect(history[2].changes == [FieldChange(field: .assignee, old: nil, new: admin.description)])
            #expect(history[3].changes == [FieldChange(field: .status, old: "open", new: "done")])
            #expect(done.createdBy == owner && done.updatedBy == admin && done.createdAt == created.createdAt)
        },
        ContractCheck("a task created with an assignee and a due date records both in its creation entry") { f in
            let member = try await f.service.user(f.member).id
            let created = try await f.makeTask("Assigned", TaskDraftFields(dueDate: ContractFixture.today, assignee: f.member))
            let history = try await f.service.history(of: created.key, as: f.viewer)
            #expect(history.count == 1)
            #expect(history.first?.changes.contains(FieldChange(field: .assignee, old: nil, new: member.description)) == true)
            #expect(history.first?.changes.contains(FieldChange(field: .dueDate, old: nil, new: "2026-03-10")) == true)
        },
        ContractCheck("a deleted task is gone with its history, and its number is not reused") { f in
            let first = try await f.makeTask("Doomed")
            try await f.service.deleteTask(first.key, expectedVersion: 1, as: f.member)
            #expect(await Outcome.of { _ = try await f.service.task(first.key, as: f.viewer) } == .notFound)
            #expect(await Outcome.of { _ = try await f.service.history(of: first.key, as: f.viewer) } == .notFound)
            #expect(try await f.makeTask("Next").key.number == 2)
        },
    ]
}
