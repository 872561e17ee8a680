import TaskCore
import TaskStoreContract
import Testing

extension TaskSessionContract {
    static let taskChecks: [SessionCheck] = [
        SessionCheck("a task comes back field for field as created, edited and cleared") { f in
            let draft = try TaskDraft(
                title: "Write the report", notes: "line one\nline two — ünïcode", status: .inProgress, priority: .high,
                dueDate: ContractFixture.today.adding(days: 3), assignee: f.member.ref, category: "Docs", externalID: "ext-\(f.uniqueSuffix())")
            let created = try await f.member.session.createTask(in: f.team, draft)
            #expect(try await f.viewer.session.task(created.key) == created)
            #expect(try await f.service.task(created.key, as: f.viewer.ref) == created)
            #expect(created.assigneeID == f.member.user.id && created.category == "Docs" && created.version == 1)
            let cleared = try await f.admin.session.updateTask(
                created.key, try TaskChanges(dueDate: .set(nil), assignee: .set(nil), category: .set(nil), externalID: .set(nil)),
                expectedVersion: 1)
            #expect(cleared.dueDate == nil && cleared.assigneeID == nil && cleared.category == nil && cleared.externalID == nil)
            #expect(cleared.title == created.title && cleared.notes == created.notes && cleared.version == 2)
            #expect(try await f.viewer.session.task(created.key) == cleared)
            let unchanged = try await f.admin.session.updateTask(created.key, try TaskChanges(title: "Write the report"), expectedVersion: 2)
            #expect(unchanged == cleared)
            let done = try await f.member.session.completeTask(created.key, expectedVersion: 2)
            #expect(done.status == .done && done.version == 3 && done.updatedBy == f.member.user.id)
            #expect(try await f.member.session.reopenTask(created.key).status == .open)
        },
        SessionCheck("a stale version is a conflict carrying the current version, and writes nothing") { f in
            let task = try await f.makeTask("Original")
            _ = try await f.member.session.updateTask(task.key, try TaskChanges(title: "First"), expectedVersion: 1)
            #expect(
                await Outcome.of { _ = try await f.admin.session.updateTask(task.key, try TaskChanges(title: "Stale"), expectedVersion: 1) }
                    == .conflict(currentVersion: 2))
            #expect(await Outcome.of { try await f.admin.session.deleteTask(task.key, expectedVersion: 1) } == .conflict(currentVersion: 2))
            // A version no task has (none is below 1) is stale too, not a malformed request.
            for version: Int64 in [0, -1] {
                #expect(
                    await Outcome.of { _ = try await f.admin.session.updateTask(task.key, try TaskChanges(title: "Never"), expectedVersion: version) }
                        == .conflict(currentVersion: 2), "\(version)")
            }
            let current = try await f.viewer.session.task(task.key)
            #expect(current.title == "First" && current.version == 2)
            try await f.member.session.deleteTask(task.key, expectedVersion: 2)
            #expect(await Outcome.of { _ = try await f.viewer.session.task(task.key) } == .notFound)
            let kept = try await f.viewer.session.history(of: task.key)
            #expect(kept.map(\.version) == [1, 2, 2] && kept.last?.kind == .deleted, "a deleted task's history stays, ending with the deletion")
            #expect(kept.last?.actorID == f.member.user.id)
            #expect(await Outcome.of { _ = try await f.outsider.session.history(of: task.key) } == .notFound)
        },
        SessionCheck("history pages through the session as through the service, each page and its cursor alike") { f in
            let task = try await f.makeTask("Paged")
            for round in 1...4 { _ = try await f.member.session.updateTask(task.key, try TaskChanges(title: "Paged \(round)"), expectedVersion: nil) }
            var query = HistoryQuery(limit: 2), pages: [HistoryPage] = []
            repeat {
                let page = try await f.viewer.session.history(of: task.key, query)
                #expect(page == (try await f.service.history(of: task.key, query, as: f.viewer.ref)))
                pages.append(page)
                query.after = page.nextCursor
            } while query.after != nil
            #expect(pages.map(\.entries.count) == [2, 2, 1])
            #expect(pages.flatMap(\.entries).map(\.version) == [1, 2, 3, 4, 5])
            #expect(await Outcome.of { _ = try await f.viewer.session.history(of: task.key, HistoryQuery(limit: 0)) } == .invalid(field: "limit"))
        },
        SessionCheck("history and summary are exactly what the service reports") { f in
            let task = try await f.makeTask(
                "Draft", TaskDraftFields(priority: .low, dueDate: ContractFixture.today.adding(days: -2), category: "Ops"))
            _ = try await f.member.session.updateTask(task.key, try TaskChanges(title: "Final", category: .set(nil)), expectedVersion: 1)
            _ = try await f.member.session.assignTask(task.key, to: f.admin.ref)
            try await f.makeTask("Other", TaskDraftFields(status: .done, category: "Ops"))
            let history = try await f.viewer.session.history(of: task.key)
            #expect(history == (try await f.service.history(of: task.key, as: f.viewer.ref)))
            #expect(history.map(\.kind) == [.created, .updated, .updated] && history.map(\.version) == [1, 2, 3])
            #expect(history.map(\.actorID) == [f.owner.user.id, f.member.user.id, f.member.user.id])
            let summary = try await f.viewer.session.summary(of: f.team)
            #expect(summary == (try await f.service.summary(of: f.team, as: f.viewer.ref)))
            #expect(summary.total == 2 && summary.overdue == 1 && summary.byStatus[.done] == 1)
            #expect(summary.byCategory == [NamedCount(name: "Ops", count: 1), NamedCount(name: "Uncategorized", count: 1)])
        },
    ]
}
