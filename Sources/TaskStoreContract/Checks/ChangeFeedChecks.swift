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
            let changes = try await collect(3, from: stream).changes
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
                let changes = try await collect(2, from: stream).changes
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
            #expect(try await collect(10, from: stream).changes.map(\.version) == Array(2...11))
        },
        ContractCheck("a watcher resuming after sequence n gets every later change, deletions included, then live ones") { f in
            let live = try await f.service.changes(in: f.team, as: f.viewer)
            let first = try await f.makeTask("One")
            let second = try await f.makeTask("Two")
            try await f.service.deleteTask(first.key, as: f.member)
            let seen = try await collect(3, from: live)
            try #require(seen.count == 3, "\(seen)")
            #expect(seen.changes.map(\.kind) == [.created, .created, .deleted])
            let resumed = try await f.service.changes(in: f.team, after: seen[0].sequence, as: f.viewer)
            let third = try await f.makeTask("Three")
            let events = try await collect(3, from: resumed)
            try #require(events.count == 3, "\(events)")
            #expect(events == Array(seen.dropFirst()) + [events[2]])
            #expect(events.changes.map(\.key) == [second.key, first.key, third.key])
            #expect(events.map(\.sequence) == [seen[1].sequence, seen[2].sequence, seen[2].sequence + 1])
        },
        ContractCheck("a resume point past the log's end (a restored database) gets a resync through the end, then every later change") { f in
            _ = try await f.makeTask("Before")
            let end = try await collect(1, from: try await f.service.changes(in: f.team, after: 0, as: f.viewer))
            try #require(end.count == 1, "\(end)")
            let resumed = try await f.service.changes(in: f.team, after: end[0].sequence + 100, as: f.viewer)
            #expect(try await collect(1, from: resumed) == [.resync(through: end[0].sequence)])
            // The same stream carries on from the end: the next change is not skipped.
            let next = try await f.makeTask("After")
            let then = try await collect(1, from: resumed)
            #expect(then.changes.map(\.key) == [next.key] && then.first?.sequence == end[0].sequence + 1, "\(then)")
        },
        ContractCheck("sequences are gapless and strictly increasing across concurrent writers of every kind") { f in
            let stream = try await f.service.changes(in: f.team, as: f.viewer)
            let doomed = try await f.makeTask("Doomed")
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<8 {
                    group.addTask {
                        let writer = index % 2 == 0 ? f.member : f.admin
                        let task = try await f.service.createTask(in: f.team, try TaskDraft(title: "Parallel \(index)"), as: writer)
                        _ = try await f.service.completeTask(task.key, as: writer)
                    }
                }
                group.addTask { try await f.service.deleteTask(doomed.key, as: f.owner) }
                try await group.waitForAll()
            }
            let events = try await collect(18, from: stream)
            let start = try #require(events.first?.sequence)
            #expect(events.map(\.sequence) == Array(start..<(start + 18)))
            #expect(events.changes.count == 18)
        },
        ContractCheck("a small import arrives task by task; one above the threshold arrives as one resync") { f in
            let stream = try await f.service.changes(in: f.team, as: f.viewer)
            let small = try (0..<3).map { try TaskImportDraft(try TaskDraft(title: "Small \($0)", externalID: "small-\($0)")) }
            _ = try await f.service.importTasks(into: f.team, policy: .update, drafts: small, as: f.member)
            let big = try (0...TaskChange.bulkImportThreshold).map {
                try TaskImportDraft(try TaskDraft(title: "Big \($0)", externalID: "big-\($0)"))
            }
            _ = try await f.service.importTasks(into: f.team, policy: .update, drafts: big, as: f.member)
            let after = try await f.makeTask("After")
            let events = try await collect(5, from: stream)
            try #require(events.count == 5, "\(events)")
            #expect(Array(events.prefix(3)).changes.map(\.kind) == [.created, .created, .created])
            let bulk = events[2].sequence + 1
            #expect(events[3] == .resync(through: bulk))
            #expect(Array(events.suffix(1)).changes.map(\.key) == [after.key])
            #expect(events.last?.sequence == bulk + 1)
        },
        ContractCheck("an import that creates and updates logs its changes in the order of its rows") { f in
            let first = try (1...2).map { try TaskImportDraft(try TaskDraft(title: "Row \($0)", externalID: "x\($0)")) }
            _ = try await f.service.importTasks(into: f.team, policy: .update, drafts: first, as: f.member)
            let stream = try await f.service.changes(in: f.team, as: f.viewer)
            // x2 changed, x3 new, x1 changed: Postgres once logged the creation first, then the
            // updates by task number (x3, x1, x2).
            let mixed = try [("x2", "Row 2 changed"), ("x3", "Row 3"), ("x1", "Row 1 changed")].map {
                try TaskImportDraft(try TaskDraft(title: $0.1, externalID: $0.0))
            }
            _ = try await f.service.importTasks(into: f.team, policy: .update, drafts: mixed, as: f.member)
            let changes = try await collect(3, from: stream).changes
            #expect(changes.map(\.key.number) == [2, 3, 1])
            #expect(changes.map(\.kind) == [.updated, .created, .updated])
        },
        ContractCheck("a member removed while watching has their stream refused: it ends with permission denied") { f in
            let watcher = try await f.makeUser()
            try await f.service.setRole(.viewer, for: watcher, in: f.team, as: f.admin)
            let stream = try await f.service.changes(in: f.team, as: watcher)
            try await f.makeTask("Seen")
            #expect(try await collect(1, from: stream).count == 1)
            try await f.service.removeMember(watcher, from: f.team, as: f.admin)
            try await f.makeTask("Not seen")
            let ending = await Outcome.of {
                for try await event in stream { Issue.record("received \(event) after removal") }
            }
            #expect(ending == .denied)
        },
        ContractCheck("a member disabled while watching has their stream refused at once, though nothing else changes in the team") { f in
            let watcher = try await f.makeUser()
            try await f.service.setRole(.viewer, for: watcher, in: f.team, as: f.admin)
            let stream = try await f.service.changes(in: f.team, as: watcher)
            try await f.makeTask("Seen")
            #expect(try await collect(1, from: stream).count == 1)
            _ = try await f.service.setUserDisabled(watcher, true, as: f.provisioner)
            // No task changes after: the disabling itself must end the stream (Postgres once
            // kept it open until the team's next change).
            let ending = await Outcome.of { _ = try await collect(1, from: stream, within: 20) }
            #expect(ending == .denied)
        },
        ContractCheck("a resume point is read under the watcher's access: an outsider gets nothing of the log") { f in
            try await f.makeTask("Private")
            #expect(await Outcome.of { _ = try await f.service.changes(in: f.team, after: 0, as: f.outsider) } == .notFound)
            #expect(await Outcome.of { _ = try await f.service.changes(in: f.team, after: 0, as: f.disabled) } == .denied)
        },
        ContractCheck("one read of the log names the team's readers as of that read: enabled members, not the removed") { f in
            var ids: [UserID] = []
            for user in [f.owner, f.admin, f.member, f.viewer] { ids.append(try await f.service.user(user).id) }
            let task = try await f.makeTask("Read once")
            let read = try await f.service.changeLog(in: f.team, after: 0, limit: 10, as: f.viewer)
            #expect(read.events.changes.last?.key == task.key)
            #expect(read.readers == Set(ids))
            try await f.service.removeMember(f.viewer, from: f.team, as: f.admin)
            #expect(try await f.service.changeLog(in: f.team, after: 0, limit: 0, as: f.member).readers == Set(ids.dropLast()))
            #expect(await Outcome.of { _ = try await f.service.changeLog(in: f.team, after: 0, limit: 10, as: f.viewer) } == .notFound)
            #expect(await Outcome.of { _ = try await f.service.changeLog(in: f.team, after: 0, limit: 10, as: f.outsider) } == .notFound)
        },
        ContractCheck("the team's doorbell rings after a change and after a membership change, and stops when told") { f in
            let doorbell = try await f.service.doorbell(of: f.team, as: f.viewer)
            var rings = doorbell.rings.makeAsyncIterator()
            try await f.makeTask("Ring")
            #expect(try await rings.next() != nil)
            try await f.service.removeMember(f.member, from: f.team, as: f.admin)
            #expect(try await rings.next() != nil)
            await doorbell.stop()
            #expect(try await rings.next() == nil)
            #expect(await Outcome.of { _ = try await f.service.doorbell(of: f.team, as: f.outsider) } == .notFound)
        },
    ]

    /// The first `count` events of `stream`, or those that arrived when `seconds` pass first
    /// (a check then fails on what it got, not on an empty list). The wait ends as soon as
    /// `count` arrive, so the generous default costs a passing check nothing; it covers a
    /// loaded machine running the whole suite in parallel.
    public static func collect(_ count: Int, from stream: TaskChangeStream, within seconds: Int = 30) async throws -> [TaskFeedEvent] {
        let received = Received()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for try await event in stream {
                    if await received.append(event) == count { break }
                }
            }
            group.addTask { try await Task.sleep(for: .seconds(seconds)) }
            try await group.next()
            group.cancelAll()
        }
        return await received.events
    }

    /// The events `collect` has received so far.
    private actor Received {
        private(set) var events: [TaskFeedEvent] = []

        /// Adds `event`; returns how many there are now.
        func append(_ event: TaskFeedEvent) -> Int {
            events.append(event)
            return events.count
        }
    }
}

extension [TaskFeedEvent] {
    /// The task changes among the events (resyncs left out).
    public var changes: [TaskChange] {
        compactMap { if case .change(let change) = $0 { change } else { nil } }
    }
}
