import TaskCore
import TaskStoreContract
import Testing

extension TaskSessionContract {
    static let feedChecks: [SessionCheck] = [
        SessionCheck("the change feed delivers every change in the team by anyone, in order, and nothing from other teams") { f in
            let stream = try await f.viewer.session.changes(in: f.team)
            let other = try await f.makeTeam()
            try await f.makeTask("Elsewhere", in: other)
            let created = try await f.member.session.createTask(in: f.team, try TaskDraft(title: "Watched"))
            let updated = try await f.member.session.completeTask(created.key, expectedVersion: 1)
            try await f.admin.session.deleteTask(created.key, expectedVersion: 2)
            let changes = try await TaskStoreContract.collect(3, from: stream).changes
            try #require(changes.count == 3, "\(changes)")
            #expect(changes.map(\.kind) == [.created, .updated, .deleted])
            #expect(changes.map(\.key) == [created.key, created.key, created.key])
            #expect(changes.map(\.version) == [1, 2, 2])
            #expect(changes.map(\.actorID) == [f.member.user.id, f.member.user.id, f.admin.user.id])
            #expect(changes.prefix(2).map(\.at) == [created.updatedAt, updated.updatedAt])
            #expect(changes.map(\.sequence) == Array(changes[0].sequence..<changes[0].sequence + 3))
        },
        SessionCheck("a feed resumed after a sequence first delivers every logged change after it, exactly as the service's") { f in
            let task = try await f.makeTask("Resumed")
            for index in 1...4 {
                _ = try await f.member.session.updateTask(task.key, try TaskChanges(notes: "edit \(index)"), expectedVersion: nil)
            }
            let logged = try await TaskStoreContract.collect(5, from: try await f.service.changes(in: f.team, after: 0, as: f.viewer.ref))
            let start = try #require(logged.first?.sequence)
            let resumed = try await TaskStoreContract.collect(3, from: try await f.viewer.session.changes(in: f.team, after: start + 1))
            #expect(resumed == Array(logged.dropFirst(2)))
            #expect(resumed.changes.map(\.version) == [3, 4, 5])
        },
        SessionCheck("a resume point past the log's end (a restored database) gets a resync through the end, then every later change") { f in
            _ = try await f.makeTask("Before")
            let end = try await TaskStoreContract.collect(1, from: try await f.service.changes(in: f.team, after: 0, as: f.viewer.ref))
            let last = try #require(end.first?.sequence)
            let resumed = try await f.viewer.session.changes(in: f.team, after: last + 100)
            #expect(try await TaskStoreContract.collect(1, from: resumed) == [.resync(through: last)])
            // The same feed carries on from the end: the next change is not skipped.
            let next = try await f.makeTask("After")
            let then = try await TaskStoreContract.collect(1, from: resumed)
            #expect(then.changes.map(\.key) == [next.key] && then.first?.sequence == last + 1, "\(then)")
        },
        SessionCheck("a member removed from the team stops receiving its changes: the feed ends refused") { f in
            let stream = try await f.viewer.session.changes(in: f.team)
            try await f.makeTask("Seen")
            var events = stream.makeAsyncIterator()
            #expect(try await events.next()?.sequence != nil)
            try await f.admin.session.removeMember(f.viewer.ref, from: f.team)
            try await f.makeTask("Not seen")
            let outcome = await Outcome.of {
                while let event = try await events.next() { Issue.record("received \(event) after removal") }
            }
            #expect(outcome == .denied)
        },
        SessionCheck("changes from concurrent writers arrive in commit order, to every watcher") { f in
            let task = try await f.makeTask("Busy")
            let first = try await f.viewer.session.changes(in: f.team)
            let second = try await f.owner.session.changes(in: f.team)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<8 {
                    group.addTask {
                        _ = try await f.member.session.updateTask(task.key, try TaskChanges(notes: "edit \(index)"), expectedVersion: nil)
                    }
                }
                try await group.waitForAll()
            }
            for stream in [first, second] { #expect(try await TaskStoreContract.collect(8, from: stream).changes.map(\.version) == Array(2...9)) }
        },
    ]
}
