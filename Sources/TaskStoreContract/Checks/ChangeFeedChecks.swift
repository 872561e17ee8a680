import TaskCore
import Testing

extension TaskStoreContract {
    static let changeFeedChecks: [ContractCheck] = [
        ContractCheck("the change feed delivers every change in the team, in order, and nothing from other teams") { f in
            let stream = try await f.service.changes(in: f.team, as: f.viewer)
            let other = try await f.makeTeam()
            try await f.makeTask("Elsewhere", in: other)
            let created = try await f.service.createTask(in: f.team, try TaskDraft(title: "Watched"), as: f.member)
            let updated = try await f.service.completeTask(created.key, expectedVersion: 1, as: f.member)
            try await f.service.deleteTask(created.key, expectedVersion: 2, as: f.admin)
            let changes = try await collect(3, from: stream)
            let member = try await f.service.user(f.member).id, admin = try await f.service.user(f.admin).id
            #expect(changes.map(\.kind) == [.created, .updated, .deleted])
            #expect(changes.map(\.key) == [created.key, created.key, created.key])
            #expect(changes.map(\.version) == [1, 2, 2])
            #expect(changes.map(\.actorID) == [member, member, admin])
            #expect(changes.prefix(2).map(\.at) == [created.updatedAt, updated.updatedAt])
        },
        ContractCheck("every listener of a team receives the same changes, imports included") { f in
            let first = try await f.service.changes(in: f.team, as: f.viewer)
            let second = try await f.service.changes(in: f.team, as: f.owner)
            let drafts = [try TaskImportDraft(try TaskDraft(title: "Imported", externalID: "feed-1"))]
            _ = try await f.service.importTasks(into: f.team, policy: .update, drafts: drafts, as: f.member)
            let task = try await f.makeTask("Made")
            for stream in [first, second] {
                let changes = try await collect(2, from: stream)
                #expect(changes.map(\.kind) == [.created, .created])
                #expect(changes.last?.key == task.key)
            }
        },
        ContractCheck("changes from concurrent writers arrive in commit order") { f in
            let task = try await f.makeTask("Busy")
            let stream = try await f.service.changes(in: f.team, as: f.viewer)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<10 {
                    group.addTask {
                        _ = try await f.service.updateTask(task.key, try TaskChanges(notes: "edit \(index)"), expectedVersion: nil, as: f.member)
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await collect(10, from: stream).map(\.version) == Array(2...11))
        },
    ]

    /// The first `count` changes of `stream`, or fewer when `seconds` pass first.
    public static func collect(_ count: Int, from stream: TaskChangeStream, within seconds: Int = 10) async throws -> [TaskChange] {
        try await withThrowingTaskGroup(of: [TaskChange]?.self) { group in
            group.addTask {
                var changes: [TaskChange] = []
                for try await change in stream {
                    changes.append(change)
                    if changes.count == count { break }
                }
                return changes
            }
            group.addTask {
                try await Task.sleep(for: .seconds(seconds))
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first ?? []
        }
    }
}
