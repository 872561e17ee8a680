import TaskCore
import Testing

extension TaskStoreContract {
    static let importChecks: [ContractCheck] = [
        ContractCheck("an import inserts, a rerun changes nothing, and a changed row updates only its task") { f in
            let rows = try importRows(f, count: 3)
            let first = try await f.service.importTasks(into: f.team, policy: .update, drafts: rows, as: f.member)
            #expect(first == ImportSummary(inserted: 3))
            let afterFirst = try await f.allTasks()
            #expect(afterFirst.map(\.key.number) == [1, 2, 3])
            #expect(afterFirst.map(\.externalID) == ["row-0", "row-1", "row-2"])
            #expect(afterFirst[1].assigneeID == (try await f.service.user(f.member).id))
            let rerun = try await f.service.importTasks(into: f.team, policy: .update, drafts: rows, as: f.member)
            #expect(rerun == ImportSummary(unchanged: 3))
            #expect(try await f.allTasks() == afterFirst)
            var changed = rows
            changed[1] = try TaskImportDraft(try TaskDraft(title: "Row 1 renamed", priority: .urgent, externalID: "row-1"))
            let update = try await f.service.importTasks(into: f.team, policy: .update, drafts: changed, as: f.member)
            #expect(update == ImportSummary(updated: 1, unchanged: 2))
            let afterUpdate = try await f.allTasks()
            #expect(afterUpdate[1].title == "Row 1 renamed" && afterUpdate[1].assigneeID == nil && afterUpdate[1].version == 2)
            #expect(afterUpdate[0] == afterFirst[0] && afterUpdate[2] == afterFirst[2])
            let history = try await f.service.history(of: afterUpdate[1].key, as: f.viewer)
            #expect(history.map(\.kind) == [.imported, .reimported])
        },
        ContractCheck("a re-import of rows that keep some fields changes only the others; a new row takes the defaults") { f in
            let rows = try importRows(f, count: 2)
            _ = try await f.service.importTasks(into: f.team, policy: .update, drafts: rows, as: f.member)
            let before = try await f.allTasks()
            let kept: TaskImportDraft.Fields = [.notes, .status, .priority, .dueDate, .assignee, .category]
            let partial = [
                try TaskImportDraft(try TaskDraft(title: "Row 1 renamed", externalID: "row-1"), keeping: kept),
                try TaskImportDraft(try TaskDraft(title: "Row 0", status: .done, externalID: "row-0"), keeping: kept.subtracting(.status)),
                try TaskImportDraft(try TaskDraft(title: "New", externalID: "new"), keeping: kept),
            ]
            let summary = try await f.service.importTasks(into: f.team, policy: .update, drafts: partial, as: f.member)
            #expect(summary == ImportSummary(inserted: 1, updated: 2))
            let after = try await f.allTasks()
            var renamed = before[1]
            renamed.title = "Row 1 renamed"
            #expect(after[1].title == "Row 1 renamed" && after[1].version == 2)
            #expect(
                (after[1].notes, after[1].status, after[1].priority, after[1].dueDate, after[1].assigneeID, after[1].category)
                    == (renamed.notes, renamed.status, renamed.priority, renamed.dueDate, renamed.assigneeID, renamed.category))
            #expect(after[0].status == .done && after[0].notes == before[0].notes && after[0].dueDate == before[0].dueDate)
            #expect(after[2].title == "New" && after[2].status == .open && after[2].priority == .none && after[2].notes.isEmpty)
            let rerun = try await f.service.importTasks(into: f.team, policy: .update, drafts: partial, as: f.member)
            #expect(rerun == ImportSummary(unchanged: 3))
        },
        ContractCheck("skip leaves existing tasks alone and still inserts new ones") { f in
            let rows = try importRows(f, count: 2)
            _ = try await f.service.importTasks(into: f.team, policy: .update, drafts: rows, as: f.member)
            let before = try await f.allTasks()
            let next = [try TaskImportDraft(try TaskDraft(title: "Changed", externalID: "row-0"))] + (try importRows(f, count: 3).suffix(1))
            let summary = try await f.service.importTasks(into: f.team, policy: .skip, drafts: next, as: f.member)
            #expect(summary == ImportSummary(inserted: 1, skipped: 1))
            #expect(Array(try await f.allTasks().prefix(2)) == before)
        },
        ContractCheck("an import that fails writes nothing: fail policy, bad assignee, duplicate id, failing source") { f in
            _ = try await f.service.importTasks(into: f.team, policy: .update, drafts: try importRows(f, count: 1), as: f.member)
            let before = try await f.allTasks()
            let fresh = try TaskImportDraft(try TaskDraft(title: "Fresh", externalID: "fresh"))
            let existing = try TaskImportDraft(try TaskDraft(title: "Clash", externalID: "row-0"))
            let badAssignee = try TaskImportDraft(try TaskDraft(title: "Bad", assignee: f.outsider, externalID: "bad"))
            #expect(
                await Outcome.of { _ = try await f.service.importTasks(into: f.team, policy: .fail, drafts: [fresh, existing], as: f.member) }
                    == .alreadyExists)
            #expect(
                await Outcome.of { _ = try await f.service.importTasks(into: f.team, policy: .update, drafts: [fresh, badAssignee], as: f.member) }
                    == .invalid(field: "assignee"))
            // Every row's assignee is judged before any row's id: a file with both faults is
            // refused for its assignee in either store, whichever row comes first.
            #expect(
                await Outcome.of { _ = try await f.service.importTasks(into: f.team, policy: .fail, drafts: [existing, badAssignee], as: f.member) }
                    == .invalid(field: "assignee"))
            #expect(
                await Outcome.of { _ = try await f.service.importTasks(into: f.team, policy: .update, drafts: [fresh, fresh], as: f.member) }
                    == .invalid(field: "externalID"))
            // Duplicates and a bad assignee together: the assignee, whatever the team holds
            // (Postgres once judged duplicates first in a team with tasks, memory always did).
            #expect(
                await Outcome.of {
                    _ = try await f.service.importTasks(into: f.team, policy: .update, drafts: [fresh, fresh, badAssignee], as: f.member)
                } == .invalid(field: "assignee"))
            // A duplicate is named with its rows in both stores.
            let other = try TaskImportDraft(try TaskDraft(title: "Other", externalID: "other"))
            let twice = await #expect(throws: TaskError.self) {
                _ = try await f.service.importTasks(into: f.team, policy: .update, drafts: [other, fresh, other, fresh], as: f.member)
            }
            #expect(
                twice == .validation(field: "externalID", reason: "\"other\" appears more than once in the import (rows 1 and 3)"),
                "\(String(describing: twice))")
            let failing = AsyncThrowingStream<[TaskImportDraft], any Error> { continuation in
                continuation.yield([fresh])
                continuation.finish(throwing: TaskError.validation(field: "file", reason: "line 3: unterminated quote"))
            }
            #expect(
                await Outcome.of { _ = try await f.service.importTasks(into: f.team, policy: .update, batches: failing, as: f.member) }
                    == .invalid(field: "file"))
            #expect(try await f.allTasks() == before)
            #expect(try await f.makeTask("After").key.number == 2)
        },
        ContractCheck("an import arrives in many batches and numbers its tasks without gaps") { f in
            let rows = try importRows(f, count: 25)
            let batches = AsyncStream<[TaskImportDraft]> { continuation in
                for start in stride(from: 0, to: rows.count, by: 10) { continuation.yield(Array(rows[start..<min(start + 10, rows.count)])) }
                continuation.finish()
            }
            let summary = try await f.service.importTasks(into: f.team, policy: .update, batches: batches, as: f.member)
            #expect(summary == ImportSummary(inserted: 25))
            #expect(try await f.allTasks().map(\.key.number) == Array(1...25))
        },
        ContractCheck("a dry run reports what the import would do and writes nothing") { f in
            _ = try await f.service.importTasks(into: f.team, policy: .update, drafts: try importRows(f, count: 2), as: f.member)
            let before = try await f.allTasks()
            let stream = try await f.service.changes(in: f.team, as: f.viewer)
            var rows = try importRows(f, count: 4)
            rows[0] = try TaskImportDraft(try TaskDraft(title: "Changed", externalID: "row-0"))
            let summary = try await f.service.importTasks(into: f.team, policy: .update, dryRun: true, drafts: rows, as: f.member)
            #expect(summary == ImportSummary(inserted: 2, updated: 1, unchanged: 1))
            #expect(
                await Outcome.of { _ = try await f.service.importTasks(into: f.team, policy: .fail, dryRun: true, drafts: rows, as: f.member) }
                    == .alreadyExists)
            #expect(try await f.allTasks() == before)
            try await f.makeTask("After")
            #expect(try await collect(1, from: stream).changes.map(\.key.number) == [3])
        },
        ContractCheck("a refused import is refused before its source is read") { f in
            let unreadable = AsyncThrowingStream<[TaskImportDraft], any Error> {
                $0.finish(throwing: TaskError.validation(field: "file", reason: "read"))
            }
            #expect(
                await Outcome.of { _ = try await f.service.importTasks(into: f.team, policy: .update, batches: unreadable, as: f.viewer) } == .denied)
            #expect(
                await Outcome.of { _ = try await f.service.importTasks(into: f.team, policy: .update, batches: unreadable, as: f.outsider) }
                    == .notFound)
        },
    ]

    /// `count` import rows `row-N` titled "Row N", odd ones assigned to the member, with due dates.
    static func importRows(_ f: ContractFixture, count: Int) throws -> [TaskImportDraft] {
        try (0..<count).map { index in
            try TaskImportDraft(
                try TaskDraft(
                    title: "Row \(index)", notes: "Imported row \(index)", priority: .medium,
                    dueDate: ContractFixture.today.adding(days: index), assignee: index % 2 == 1 ? f.member : nil,
                    category: index % 3 == 0 ? nil : "Imported", externalID: "row-\(index)"))
        }
    }
}
