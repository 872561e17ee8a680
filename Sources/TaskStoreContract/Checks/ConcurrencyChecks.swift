import TaskCore
import Testing

extension TaskStoreContract {
    static let concurrencyChecks: [ContractCheck] = [
        ContractCheck("a stale version is a conflict that carries the current version and overwrites nothing") { f in
            let created = try await f.makeTask("Original")
            let edited = try await f.service.updateTask(created.key, try TaskChanges(title: "First edit"), expectedVersion: 1, as: f.member)
            #expect(edited.version == 2)
            let historyBefore = try await f.service.history(of: created.key, as: f.viewer)
            #expect(
                await Outcome.of {
                    _ = try await f.service.updateTask(created.key, try TaskChanges(title: "Stale edit"), expectedVersion: 1, as: f.admin)
                } == .conflict(currentVersion: 2))
            #expect(
                await Outcome.of { _ = try await f.service.completeTask(created.key, expectedVersion: 1, as: f.admin) }
                    == .conflict(currentVersion: 2))
            #expect(await Outcome.of { try await f.service.deleteTask(created.key, expectedVersion: 1, as: f.admin) } == .conflict(currentVersion: 2))
            #expect(try await f.service.task(created.key, as: f.viewer) == edited)
            #expect(try await f.service.history(of: created.key, as: f.viewer) == historyBefore)
            #expect(
                await Outcome.of {
                    _ = try await f.service.updateTask(created.key, try TaskChanges(title: "Fresh edit"), expectedVersion: 2, as: f.admin)
                } == .ok)
        },
        ContractCheck("an edit that changes nothing keeps the version and records no history") { f in
            let task = try await f.makeTask("Same", TaskDraftFields(priority: .low))
            let same = try await f.service.updateTask(task.key, try TaskChanges(title: " Same ", priority: .low), expectedVersion: 1, as: f.member)
            #expect(same == task)
            #expect(try await f.service.history(of: task.key, as: f.viewer).count == 1)
        },
        ContractCheck("concurrent creators get distinct, gapless numbers, and a refused create uses no number") { f in
            try await f.makeTask("First")
            #expect(
                await Outcome.of { _ = try await f.service.createTask(in: f.team, try TaskDraft(title: "T", assignee: f.outsider), as: f.member) }
                    == .invalid(field: "assignee"))
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<20 {
                    group.addTask { _ = try await f.service.createTask(in: f.team, try TaskDraft(title: "Racer \(index)"), as: f.member) }
                }
                try await group.waitForAll()
            }
            let numbers = try await f.allTasks().map(\.key.number)
            #expect(numbers == Array(1...21))
            let other = try await f.makeTeam()
            #expect(try await f.makeTask(in: other).key.number == 1)
        },
        ContractCheck("concurrent edits at the same version: exactly one wins") { f in
            let task = try await f.makeTask("Contested")
            let outcomes = await withTaskGroup(of: Outcome.self) { group in
                for index in 0..<10 {
                    group.addTask {
                        await Outcome.of {
                            _ = try await f.service.updateTask(task.key, try TaskChanges(title: "Edit \(index)"), expectedVersion: 1, as: f.member)
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 == .ok }.count == 1)
            #expect(outcomes.filter { $0 == .conflict(currentVersion: 2) }.count == 9)
        },
    ]
}
