import Foundation
import PGStore
import Synchronization
import TaskCore
@testable import TaskbaseServer
import TaskbaseTestSupport
import TaskbaseWire
import Testing

@Suite("The event streams' fan-out: one hub per team, one log read per change")
struct EventFanOutTests {
    func subscribe(_ f: ServerFixture, as role: String, headers: [String: String] = [:]) async throws -> RawConnection {
        let connection = try RawConnection(port: f.server.http.port)
        connection.get("/v1/teams/\(f.team)/events", headers: ["Authorization": "Bearer \(f.tokens[role]!)"].merging(headers) { $1 })
        #expect(await connection.read(until: { $0.contains(": connected") }))
        return connection
    }

    /// Waits until the team's hub has started with `count` subscribers.
    func waitForSubscribers(_ f: ServerFixture, _ count: Int) async throws {
        try await waitUntil("\(count) subscribers in the hub") {
            let statistics = f.server.eventHubs.statistics(of: f.team)
            return statistics?.subscribers == count && statistics?.started == true
        }
    }

    /// The events `deliveries` hands over until it ends or `limit` passes, and whether it ended.
    func drain(_ deliveries: AsyncStream<HubDelivery>, within limit: Duration) async -> (sequences: [Int64], ended: Bool) {
        await withTaskGroup(of: ([Int64], Bool)?.self) { group in
            group.addTask {
                var sequences: [Int64] = []
                for await delivery in deliveries {
                    if case .event(let sequence, _) = delivery { sequences.append(sequence) }
                }
                return (sequences, !Task.isCancelled)
            }
            group.addTask {
                try? await Task.sleep(for: limit)
                return nil
            }
            let first = await group.next()!
            group.cancelAll()
            if let first { return first }
            return await group.next()!!  // the reader, cut short by the cancellation
        }
    }

    /// The hub's own queue per subscriber (`TeamEventHub.queueLimit` events): a subscriber that
    /// takes nothing while more than that many changes are made is cut off after the events it
    /// was handed, never continued past a gap; one that keeps up gets every event.
    @Test("a subscriber a whole queue behind is cut off after what it was handed, with no gap; one that keeps up gets every event")
    func hubQueueOverflow() async throws {
        let f = try await ServerFixture.start(.memory)
        let slow = f.server.eventHubs.subscribe(f.team, user: f.viewer.id)
        let fast = f.server.eventHubs.subscribe(f.team, user: f.member.id)
        try await waitForSubscribers(f, 2)
        let total = TeamEventHub.queueLimit + 200
        // The writes go in batches of 100, each once the reader that keeps up has the last: on a
        // loaded machine, writes made all at once outran it too (it had 1,023 of them).
        let received = Mutex<[Int64]>([])
        let keepingUp = Task {
            for await delivery in fast.deliveries {
                if case .event(let sequence, _) = delivery { received.withLock { $0.append(sequence) } }
            }
        }
        for batch in stride(from: 1, through: total, by: 100) {
            for number in batch...min(batch + 99, total) {
                _ = try await f.service.createTask(in: f.team, try TaskDraft(title: "Change \(number)"), as: .id(f.member.id))
            }
            try await waitUntil("the reader that keeps up to have the batch", limit: .seconds(60)) {
                received.withLock { $0.count } >= min(batch + 99, total)
            }
        }
        fast.leave()
        await keepingUp.value
        let everything = received.withLock { $0 }
        #expect(everything.count == total)
        #expect(everything == Array(everything.first!..<everything.first! + Int64(total)), "the reader that kept up lost or repeated events")

        let behind = await drain(slow.deliveries, within: .seconds(10))
        #expect(behind.ended, "a subscriber a whole queue behind kept its stream")
        #expect(behind.sequences.count <= TeamEventHub.queueLimit && behind.sequences.count >= 1)
        #expect(behind.sequences == Array(everything.prefix(behind.sequences.count)), "the cut-off subscriber's events have a gap")
        slow.leave()
        await f.stop()
    }

    @Test(
        "with many subscribers to one team, one change costs one log read and one description, and all get the same event",
        arguments: StoreKind.allCases)
    func oneReadPerChange(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store)
        let roles = ["owner", "member", "viewer", "owner", "member", "viewer", "owner", "member", "viewer", "owner"]
        var streams: [RawConnection] = []
        for role in roles { streams.append(try await subscribe(f, as: role)) }
        try await waitForSubscribers(f, roles.count)
        #expect(f.server.eventHubs.count == 1)
        let before = try #require(f.server.eventHubs.statistics(of: f.team))
        _ = try await f.client("member").send("POST", "/v1/teams/\(f.team)/tasks", json: #"{"title": "Fanned out once"}"#)
        for stream in streams {
            #expect(await stream.read(until: { _ in stream.changeEvents().count == 1 }))
        }
        let after = try #require(f.server.eventHubs.statistics(of: f.team))
        #expect(after.reads - before.reads == 1)
        #expect(after.texts - before.texts == 1)
        let events = streams.map { $0.changeEvents() }
        #expect(Set(events.map { $0.map(\.data) }).count == 1)
        #expect(events[0].first?.data.contains("Fanned out once") == true)
        await f.stop()
    }

    @Test(
        "a member removed while others watch is cut off at once, whether or not the hub read as them, and the others keep receiving",
        arguments: StoreKind.allCases)
    func removedAmongOthers(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store, heartbeat: .milliseconds(100))
        let owner = f.client("owner")
        // First the viewer subscribes first (the one the hub reads as), then last.
        for round in 1...2 {
            var viewer: RawConnection?
            if round == 1 { viewer = try await subscribe(f, as: "viewer") }
            let others = [try await subscribe(f, as: "member"), try await subscribe(f, as: "owner")]
            if round == 2 { viewer = try await subscribe(f, as: "viewer") }
            let removed = try #require(viewer)
            try await waitForSubscribers(f, 3)
            #expect(try await owner.send("DELETE", "/v1/teams/\(f.team)/members/\(f.viewer.email)").status == 200)
            #expect(await removed.readUntilClosed())
            _ = try await f.client("member").send("POST", "/v1/teams/\(f.team)/tasks", json: #"{"title": "After removal \#(round)"}"#)
            for stream in others {
                #expect(await stream.read(until: { $0.contains("After removal \(round)") }))
            }
            #expect(!removed.text.contains("After removal"))
            for stream in others { stream.hangUp() }
            try await waitUntil("the hub to stop") { f.server.eventHubs.statistics(of: f.team) == nil }
            #expect(try await owner.send("PUT", "/v1/teams/\(f.team)/members/\(f.viewer.email)", json: #"{"role": "viewer"}"#).status < 300)
        }
        await f.stop()
    }

    @Test("a change by someone who has left is #id to every subscriber, though the hub reads as an owner, who may see their email")
    func formerMemberByID() async throws {
        let f = try await ServerFixture.start(.postgres)
        let owner = try await subscribe(f, as: "owner")  // the longest-standing: the hub reads as them
        let viewer = try await subscribe(f, as: "viewer")
        try await waitForSubscribers(f, 2)
        let leaver = try await f.service.createUser(email: "leaver.\(f.team.rawValue.lowercased())@example.com", displayName: "Leaver")
        _ = try await f.service.setRole(.member, for: .email(leaver.email), in: f.team, as: .id(f.owner.id))
        let task = try await f.service.createTask(in: f.team, TaskDraft(title: "Edited by one who left"), as: .id(f.member.id))
        for stream in [owner, viewer] { #expect(await stream.read(until: { _ in stream.changeEvents().count == 1 })) }
        // The leaver's change and their leaving in one transaction, so the hub reads the change
        // only once they are gone (and shares no team with the viewer).
        let team = try await f.service.team(f.team, as: .id(f.owner.id)).team.id.rawValue
        try await PGConnection.with(try await TestDatabases.shared.value) { connection in
            _ = try await connection.simpleQuery(unsafeSQL: "BEGIN")
            try await connection.execute(
                """
                WITH counter AS (
                    UPDATE task_counters SET last_change = last_change + 1 WHERE team_id = \(team) RETURNING last_change
                )
                INSERT INTO task_changes (team_id, sequence, kind, task_id, number, version, actor_id, changed_at)
                SELECT \(team), counter.last_change, 'updated', \(task.id.rawValue), \(task.key.number), 2, \(leaver.id.rawValue), now()
                  FROM counter
                """)
            try await connection.execute("DELETE FROM memberships WHERE team_id = \(team) AND user_id = \(leaver.id.rawValue)")
            _ = try await connection.query("SELECT pg_notify('taskbase.team.' || \(f.team.rawValue), '')")
            _ = try await connection.simpleQuery(unsafeSQL: "COMMIT")
        }
        for stream in [owner, viewer] {
            #expect(await stream.read(until: { _ in stream.changeEvents().count == 2 }))
            let data = try #require(stream.changeEvents().last?.data)
            #expect(data.contains(##""actor":"#\##(leaver.id)""##), "\(data)")
            #expect(!data.contains(leaver.email), "\(data)")
        }
        await f.stop()
    }

    @Test("one who leaves while the hub knows them is #id in the live events of their leaving, as in a resumed stream", arguments: StoreKind.allCases)
    func leaverKnownToTheHub(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store)
        let leaver = try await f.service.createUser(email: "known.\(f.team.rawValue.lowercased())@example.com", displayName: "Known")
        _ = try await f.service.setRole(.member, for: .email(leaver.email), in: f.team, as: .id(f.owner.id))
        let task = try await f.service.createTask(in: f.team, TaskDraft(title: "Theirs", assignee: .id(leaver.id)), as: .id(f.owner.id))
        // The hub starts with the leaver among the members it names by email.
        let owner = try await subscribe(f, as: "owner"), viewer = try await subscribe(f, as: "viewer")
        try await waitForSubscribers(f, 2)
        _ = try await f.service.updateTask(task.key, try TaskChanges(notes: "by them"), expectedVersion: nil, as: .id(leaver.id))
        for stream in [owner, viewer] {
            #expect(await stream.read(until: { _ in stream.changeEvents().count == 1 }))
            #expect(stream.changeEvents().last?.data.contains(leaver.email) == true, "a member is named by email")
        }
        // Leaving unassigns their task in their name; the hub once named them from the members
        // it read before, by email, to people who share no team with them any more.
        try await f.service.removeMember(.id(leaver.id), from: f.team, as: .id(leaver.id))
        for stream in [owner, viewer] {
            #expect(await stream.read(until: { _ in stream.changeEvents().count == 2 }))
            let data = try #require(stream.changeEvents().last?.data)
            #expect(data.contains(##""actor":"#\##(leaver.id)""##) && !data.contains(leaver.email), "\(data)")
        }
        await f.stop()
    }

    @Test("a resumed stream catches up from the log by itself, then takes the live feed: nothing lost, nothing twice", arguments: StoreKind.allCases)
    func resumeHandsOver(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store)
        let live = try await subscribe(f, as: "owner")
        let count = 40
        let writer = Task {
            for number in 1...count {
                _ = try await f.service.createTask(in: f.team, TaskDraft(title: "Handover \(number)"), as: .id(f.member.id))
            }
        }
        #expect(await live.read(until: { _ in live.changeEvents().count >= 5 }, limit: .seconds(30)))
        let first = try #require(live.changeEvents().first)
        // Joins while the writer keeps writing: the catch-up and the hub's events meet somewhere.
        let resumed = try await subscribe(f, as: "viewer", headers: ["Last-Event-ID": String(first.id)])
        try await writer.value
        #expect(await live.read(until: { _ in live.changeEvents().count >= count }, limit: .seconds(30)))
        #expect(await resumed.read(until: { _ in resumed.changeEvents().count >= count - 1 }, limit: .seconds(30)))
        let ids = live.changeEvents().map(\.id)
        #expect(ids == Array(ids[0]...(ids[0] + Int64(count) - 1)))
        #expect(resumed.changeEvents().map(\.id) == Array(ids.dropFirst()))
        await f.stop()
    }

    @Test("forged notifications on a team's channel cost the hub a read at most and reach no subscriber as events")
    func forgedNotifications() async throws {
        let f = try await ServerFixture.start(.postgres)
        let streams = [try await subscribe(f, as: "viewer"), try await subscribe(f, as: "member")]
        try await waitForSubscribers(f, 2)
        let before = try #require(f.server.eventHubs.statistics(of: f.team))
        let database = try await TestDatabases.shared.value
        try await TestLogin.with { nobody in
            try await PGConnection.with(nobody.config(for: database)) { connection in
                let forged = #"id: 999\nevent: change\ndata: {"kind":"deleted","key":"\#(f.team)-1","sequence":999}"#
                _ = try await connection.query("SELECT pg_notify(\("taskbase.team.\(f.team)"), \(forged))")
            }
        }
        _ = try await f.client("member").send("POST", "/v1/teams/\(f.team)/tasks", json: #"{"title": "Real"}"#)
        for stream in streams {
            #expect(await stream.read(until: { $0.contains("Real") }))
            #expect(stream.changeEvents().count == 1)
            #expect(!stream.text.contains("id: 999") && !stream.text.contains("\"sequence\":999"))
        }
        let after = try #require(f.server.eventHubs.statistics(of: f.team))
        #expect(after.texts - before.texts == 1)
        #expect(after.reads - before.reads <= 2)
        await f.stop()
    }

    @Test("a flood of forged notifications on a team's channel costs the hub at most a read per ring spacing, and real changes come through")
    func forgedFlood() async throws {
        let f = try await ServerFixture.start(.postgres)
        let stream = try await subscribe(f, as: "viewer")
        try await waitForSubscribers(f, 1)
        let before = try #require(f.server.eventHubs.statistics(of: f.team))
        let database = try await TestDatabases.shared.value
        let started = ContinuousClock.now
        try await RuntimeRoleSQL.flood("taskbase.team.\(f.team)", in: database, for: .seconds(2))
        _ = try await f.client("member").send("POST", "/v1/teams/\(f.team)/tasks", json: #"{"title": "Real"}"#)
        #expect(await stream.read(until: { $0.contains("Real") }))
        let after = try #require(f.server.eventHubs.statistics(of: f.team))
        // One read per ring acted on, at most one ring per spacing (the first at once), and the
        // reads the start and the real change may add.
        let allowed = ChangeLogFollower.ringPace.mostRings(in: ContinuousClock.now - started) + 3
        #expect(after.reads - before.reads <= allowed, "\(after.reads - before.reads) reads")
        #expect(after.texts - before.texts == 1)
        await f.stop()
    }

    @Test("the hub for a team stops when its last subscriber leaves, and a later subscriber starts a new one", arguments: StoreKind.allCases)
    func hubStopsWithLastSubscriber(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store, heartbeat: .milliseconds(100))
        let streams = [try await subscribe(f, as: "owner"), try await subscribe(f, as: "viewer")]
        try await waitForSubscribers(f, 2)
        for stream in streams { stream.hangUp() }
        try await waitUntil("the hub to stop") { f.server.eventHubs.count == 0 }
        let again = try await subscribe(f, as: "member")
        try await waitForSubscribers(f, 1)
        _ = try await f.client("member").send("POST", "/v1/teams/\(f.team)/tasks", json: #"{"title": "New hub"}"#)
        #expect(await again.read(until: { $0.contains("New hub") }))
        await f.stop()
        try await waitUntil("the hub to stop at shutdown") { f.server.eventHubs.count == 0 }
    }
}
