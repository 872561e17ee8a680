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
        ContractCheck("a deleted task is gone but its history stays readable by its key to the team, and its number is not reused") { f in
            let first = try await f.makeTask("Doomed")
            let edited = try await f.service.updateTask(first.key, try TaskChanges(title: "Still doomed"), expectedVersion: 1, as: f.member)
            let before = try await f.service.history(of: first.key, as: f.viewer)
            try await f.service.deleteTask(first.key, expectedVersion: 2, as: f.admin)
            #expect(await Outcome.of { _ = try await f.service.task(first.key, as: f.viewer) } == .notFound)
            let kept = try await f.service.history(of: first.key, as: f.viewer)
            #expect(Array(kept.dropLast()) == before && kept.map(\.kind) == [.created, .updated, .deleted])
            let next = try await f.makeTask("Next")
            #expect(next.key.number == 2)
            let deletion = try #require(kept.last)
            #expect(deletion.actorID == (try await f.service.user(f.admin).id) && deletion.taskID == first.id)
            #expect(deletion.version == 2 && deletion.changes.isEmpty)
            #expect(deletion.at > edited.updatedAt && deletion.at < next.createdAt, "the deletion's time is when it happened")
            #expect(await Outcome.of { _ = try await f.service.history(of: first.key, as: f.outsider) } == .notFound)
            #expect(await Outcome.of { _ = try await f.service.history(of: first.key, as: f.disabled) } != .ok)
            #expect(await Outcome.of { _ = try await f.service.history(of: TaskKey(team: first.key.team, number: 3), as: f.viewer) } == .notFound)
        },
        ContractCheck("history pages: every entry once, in order, across pages and entries added between them; limits and cursors checked") { f in
            let task = try await f.makeTask("Paged")
            for round in 1...4 {
                _ = try await f.service.updateTask(task.key, try TaskChanges(title: "Paged \(round)"), expectedVersion: nil, as: f.member)
            }
            let whole = try await f.service.history(of: task.key, as: f.viewer)
            #expect(whole.map(\.version) == [1, 2, 3, 4, 5])
            let first = try await f.service.history(of: task.key, HistoryQuery(limit: 2), as: f.viewer)
            #expect(first.entries == Array(whole[0..<2]))
            // An entry written between two pages is on a later one, as the history grows at its end only.
            _ = try await f.service.updateTask(task.key, try TaskChanges(title: "Paged 5"), expectedVersion: nil, as: f.member)
            try await f.service.deleteTask(task.key, as: f.member)
            var pages = [first], query = HistoryQuery(limit: 2, after: first.nextCursor)
            while let after = query.after {
                let page = try await f.service.history(
                    of: task.key, HistoryQuery(limit: 2, after: try HistoryCursor(encoded: after.encoded)), as: f.viewer)
                pages.append(page)
                query.after = page.nextCursor
            }
            #expect(pages.map(\.entries.count) == [2, 2, 2, 1])
            let all = pages.flatMap(\.entries)
            #expect(all.map(\.version) == [1, 2, 3, 4, 5, 6, 6] && all.last?.kind == .deleted)
            #expect(all == (try await f.service.history(of: task.key, as: f.viewer)))
            // Paging a deleted task past its end is an empty last page, not "not found".
            let lastCursor = try #require(pages[2].nextCursor)
            let past = try await f.service.history(of: task.key, HistoryQuery(limit: 5, after: lastCursor), as: f.viewer)
            #expect(past.entries.count == 1 && past.nextCursor == nil)
            let beyond = try await f.service.history(of: task.key, HistoryQuery(limit: 5, after: HistoryCursor(position: Int64.max)), as: f.viewer)
            #expect(beyond.entries.isEmpty && beyond.nextCursor == nil)
            for limit in [0, 1_001] {
                #expect(
                    await Outcome.of { _ = try await f.service.history(of: task.key, HistoryQuery(limit: limit), as: f.viewer) }
                        == .invalid(field: "limit"))
            }
            #expect(throws: TaskError.self) { try HistoryCursor(encoded: "bm90IGEgY3Vyc29y") }
            #expect(
                await Outcome.of { _ = try await f.service.history(of: task.key, HistoryQuery(limit: 2, after: lastCursor), as: f.outsider) }
                    == .notFound)
        },
        ContractCheck("a task imported and then deleted keeps its import history under its key") { f in
            let summary = try await f.service.importTasks(
                into: f.team, policy: .update, drafts: [try TaskImportDraft(try TaskDraft(title: "Imported", externalID: "gone-1"))], as: f.member)
            #expect(summary.inserted == 1)
            _ = try await f.service.importTasks(
                into: f.team, policy: .update, drafts: [try TaskImportDraft(try TaskDraft(title: "Reimported", externalID: "gone-1"))],
                as: f.member)
            let task = try #require(try await f.service.listTasks(in: f.team, as: f.viewer).tasks.first { $0.externalID == "gone-1" })
            try await f.service.deleteTask(task.key, as: f.member)
            #expect(try await f.service.history(of: task.key, as: f.viewer).map(\.kind) == [.imported, .reimported, .deleted])
        },
    ]
}
