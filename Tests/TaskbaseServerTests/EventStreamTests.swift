import Foundation
import PGStore
import Synchronization
import TaskCore
import TaskStorePG
@testable import TaskbaseServer
import TaskbaseTestSupport
import TaskbaseWire
import Testing

@Suite("The event stream (Server-Sent Events) over both stores")
struct EventStreamTests {
    func subscribe(
        _ f: ServerFixture, as role: String, to team: TeamKey? = nil, headers: [String: String] = [:], receiveBuffer: Int32? = nil
    ) async throws
        -> RawConnection
    {
        let connection = try RawConnection(port: f.server.http.port, receiveBuffer: receiveBuffer)
        connection.get("/v1/teams/\(team ?? f.team)/events", headers: ["Authorization": "Bearer \(f.tokens[role]!)"].merging(headers) { $1 })
        #expect(await connection.read(until: { $0.contains(": connected") }))
        return connection
    }

    @Test(
        "a stream of a team deleted and made again under its key ends, and resuming it with the old team's event id is 404, never the new team's log",
        arguments: StoreKind.allCases)
    func teamMadeAgainUnderItsKey(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store)
        let owner = f.client("owner")
        let stream = try await subscribe(f, as: "owner")
        for title in ["Old 1", "Old 2", "Old 3"] {
            _ = try await owner.send("POST", "/v1/teams/\(f.team)/tasks", json: #"{"title": "\#(title)"}"#)
        }
        #expect(await stream.read(until: { _ in stream.changeEvents().count >= 3 }), "\(stream.text.debugDescription)")
        let lastID = try #require(stream.text.components(separatedBy: "\n").last(where: { $0.hasPrefix("id: ") })).dropFirst(4)
        #expect(try await owner.send("DELETE", "/v1/teams/\(f.team)").status == 204)
        // The owner makes a team under the same key and writes more than the old log held.
        #expect(try await owner.send("POST", "/v1/teams", json: #"{"key": "\#(f.team)", "name": "Again"}"#).status == 201)
        for title in ["New 1", "New 2", "New 3", "New 4", "New 5"] {
            _ = try await owner.send("POST", "/v1/teams/\(f.team)/tasks", json: #"{"title": "\#(title)"}"#)
        }
        #expect(await stream.readUntilClosed(), "the old team's stream ends: \(stream.text.debugDescription)")
        let titles = try stream.changeEvents().map { try WireJSON.makeDecoder().decode(ChangeDocument.self, from: Data($0.data.utf8)).title.value }
        #expect(titles == ["Old 1", "Old 2", "Old 3"], "none of the new team's events reach the old team's stream")
        // A client coming back with the old team's last id: once, the server resumed after its
        // sequence in the new team's log and sent "New 4", "New 5" as the old team's changes.
        let resumed = try RawConnection(port: f.server.http.port)
        resumed.get("/v1/teams/\(f.team)/events", headers: ["Authorization": "Bearer \(f.tokens["owner"]!)", "Last-Event-ID": String(lastID)])
        #expect(await resumed.read(until: { $0.contains("\r\n\r\n{") }), "\(resumed.text.debugDescription)")
        #expect(resumed.text.hasPrefix("HTTP/1.1 404"), "\(resumed.text.debugDescription)")
        #expect(!resumed.text.contains("New "))
        // So is ?after= with it (a browser reloading passes the lastEventId it kept; it was 422).
        let afterQuery = try RawConnection(port: f.server.http.port)
        afterQuery.get("/v1/teams/\(f.team)/events?after=\(lastID)", headers: ["Authorization": "Bearer \(f.tokens["owner"]!)"])
        #expect(await afterQuery.read(until: { $0.contains("\r\n\r\n{") }), "\(afterQuery.text.debugDescription)")
        #expect(afterQuery.text.hasPrefix("HTTP/1.1 404"), "\(afterQuery.text.debugDescription)")
        // A bare sequence (as ?after= or an older server sent) still resumes in today's log.
        let bare = try await subscribe(f, as: "owner", headers: ["Last-Event-ID": "3"])
        #expect(await bare.read(until: { _ in bare.changeEvents().count >= 2 }), "\(bare.text.debugDescription)")
        // The new team's own id, from the place the stream starts from, resumes with ?after= too.
        let start = try #require(bare.text.components(separatedBy: ": connected\nid: ").last?.split(separator: "\n").first)
        #expect(start.hasSuffix(":3") && !start.hasPrefix(String(lastID.split(separator: ":")[0]) + ":"), "\(start)")
        let own = try RawConnection(port: f.server.http.port)
        own.get("/v1/teams/\(f.team)/events?after=\(start)", headers: ["Authorization": "Bearer \(f.tokens["owner"]!)"])
        #expect(await own.read(until: { _ in own.changeEvents().count >= 2 }), "\(own.text.debugDescription)")
        await f.stop()
    }

    @Test("every change arrives in order with its sequence as id and the ChangeDocument as data", arguments: StoreKind.allCases)
    func order(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store)
        let log = try await f.service.changeLog(in: f.team, after: Int64.max, limit: 0, as: .id(f.owner.id))
        let (end, teamID) = (log.lastSequence, log.teamID.rawValue)
        let stream = try await subscribe(f, as: "viewer")
        #expect(stream.text.hasPrefix("HTTP/1.1 200"))
        #expect(stream.text.contains("Content-Type: text/event-stream"))
        // Before any event, the place it starts from: the log's end, as an id with no data.
        #expect(await stream.read(until: { $0.contains(": connected\nid: \(teamID):\(end)\n\n") }), "\(stream.text.debugDescription)")
        let member = f.client("member")
        let created = try await member.send("POST", "/v1/teams/\(f.team)/tasks", json: #"{"title": "Streamed"}"#).decode(TaskDocument.self)
        // The title is looked up as the event goes out: let the first go before the task is deleted.
        #expect(await stream.read(until: { _ in stream.changeEvents().count >= 1 }))
        _ = try await member.send("PATCH", "/v1/tasks/\(created.key)", json: #"{"status": "done"}"#)
        _ = try await member.send("DELETE", "/v1/tasks/\(created.key)")
        #expect(await stream.read(until: { _ in stream.changeEvents().count >= 3 }), "\(stream.text.debugDescription)")
        let events = stream.changeEvents()
        let documents = try events.map { try WireJSON.makeDecoder().decode(ChangeDocument.self, from: Data($0.data.utf8)) }
        #expect(documents.map(\.kind) == ["created", "updated", "deleted"])
        #expect(documents.map(\.key) == [created.key, created.key, created.key])
        #expect(documents.map(\.actor) == [f.member.email, f.member.email, f.member.email])
        #expect(documents.first?.title.value == "Streamed")
        #expect(events.map(\.id) == documents.map(\.sequence))
        #expect(events.map(\.id) == events.map(\.id).sorted())

        let first = try #require(events.first)
        let resumed = try await subscribe(f, as: "owner", headers: ["Last-Event-ID": String(first.id)])
        #expect(await resumed.read(until: { _ in resumed.changeEvents().count >= 2 }))
        #expect(resumed.changeEvents().map(\.id) == Array(events.map(\.id).dropFirst()))

        // An id past the log's end (a database restored from an older copy): a resync through
        // the end, then the changes after it, none skipped.
        let last = try #require(events.last?.id)
        let ahead = try await subscribe(f, as: "owner", headers: ["Last-Event-ID": String(last + 50)])
        #expect(
            await ahead.read(until: { $0.contains("id: \(teamID):\(last)\nevent: resync\ndata: {\"through\": \(last)}") }),
            "\(ahead.text.debugDescription)")
        let later = try await member.send("POST", "/v1/teams/\(f.team)/tasks", json: #"{"title": "After the restore"}"#).decode(TaskDocument.self)
        #expect(await ahead.read(until: { _ in ahead.changeEvents().count >= 1 }), "\(ahead.text.debugDescription)")
        #expect(ahead.changeEvents().map(\.id) == [last + 1], "\(later.key)")
        await f.stop()
    }

    @Test("outsiders get 404 and no stream; a member removed while watching is cut off", arguments: StoreKind.allCases)
    func access(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store)
        #expect(try await f.client("outsider").get("/v1/teams/\(f.team)/events").status == 404)
        #expect(try await f.client().get("/v1/teams/\(f.team)/events").status == 401)
        let stream = try await subscribe(f, as: "viewer")
        #expect(try await f.client("owner").send("DELETE", "/v1/teams/\(f.team)/members/\(f.viewer.email)").status == 200)
        _ = try await f.client("member").send("POST", "/v1/teams/\(f.team)/tasks", json: #"{"title": "After removal"}"#)
        #expect(await stream.readUntilClosed())
        #expect(!stream.text.contains("After removal"))
        await f.stop()
    }

    @Test("idle streams carry keep-alive comments; shutdown ends open streams and returns")
    func heartbeatAndShutdown() async throws {
        let f = try await ServerFixture.start(.memory, heartbeat: .milliseconds(100))
        let stream = try await subscribe(f, as: "viewer")
        #expect(await stream.read(until: { $0.contains(": keep-alive\n\n") }))
        #expect(f.server.http.openStreams == 1)
        // A stream that shutdown failed to end would hold it for the whole grace: 60 s here, so a
        // machine starved for seconds (12.4 s once, in a full run on two cores) does not look
        // like that.
        let started = ContinuousClock.now
        await f.server.shutdown(grace: .seconds(60))
        #expect(ContinuousClock.now - started < .seconds(30))
        #expect(await stream.readUntilClosed())
    }

    @Test(
        "every subscriber of one server shares one listening session, whatever their team: one backend LISTENs, and each gets every change of its team"
    )
    func oneListeningSession() async throws {
        // A store of its own whose sessions carry an application name of their own, so the count
        // is this server's alone.
        let name = "fan-out-\(UInt32.random(in: 0..<UInt32.max))"
        let base = try await TestDatabases.shared.value
        let config = PGConfig(parameters: base.parameters.filter { $0.key != "application_name" } + [("application_name", name)])
        let store = try await PostgresTaskStore.open(config: config, maxConnections: 4)
        let f = try await ServerFixture.start(store: store)
        var streams: [RawConnection] = []
        for role in ["owner", "member", "viewer", "owner", "member", "viewer", "owner", "member"] {
            streams.append(try await subscribe(f, as: role))
        }
        // Two more subscribers of another team: a session per team would show two.
        let second = try await f.service.createTeam(key: "O" + String(f.team.rawValue.dropFirst()), name: "Second team", as: .id(f.owner.id))
        let others = [try await subscribe(f, as: "owner", to: second.key), try await subscribe(f, as: "owner", to: second.key)]
        // A listening session's last statement is a LISTEN: one session per subscriber (and one
        // for the token cache) would show eleven.
        let listening = try await PGConnection.with(base) { connection in
            try await connection.query(
                "SELECT pid FROM pg_stat_activity WHERE application_name = \(name) AND (query LIKE 'LISTEN %' OR query LIKE 'UNLISTEN %')"
            ).map { try $0.decode(Int32.self, "pid") }
        }
        let pid = await store.listeningBackendPID
        #expect(listening.count == 1)
        #expect(listening == [try #require(pid)])
        _ = try await f.client("member").send("POST", "/v1/teams/\(f.team)/tasks", json: #"{"title": "Fanned out"}"#)
        _ = try await f.client("owner").send("POST", "/v1/teams/\(second.key)/tasks", json: #"{"title": "Second team's"}"#)
        for stream in streams {
            #expect(await stream.read(until: { _ in stream.changeEvents().count == 1 }))
            #expect(stream.text.contains("Fanned out"))
        }
        for stream in others {
            #expect(await stream.read(until: { _ in stream.changeEvents().count == 1 }))
            #expect(stream.text.contains("Second team's") && !stream.text.contains("Fanned out"))
        }
        #expect(streams.allSatisfy { !$0.text.contains("Second team's") })
        await f.stop()
        // Every stream ended and the token cache stopped: no listening session is left behind.
        try await waitUntil("the listening session to close") { await store.listeningBackendPID == nil }
    }

    @Test(
        "a client that stops reading is disconnected once its queue overflows, while another gets every event in order",
        arguments: StoreKind.allCases)
    func slowClientIsCutOff(store: StoreKind) async throws {
        let f = try await ServerFixture.start(
            store, limits: HTTPServerLimits(streamSocketBufferBytes: 4_096), streamBufferBytes: 4_096, streamPatience: .milliseconds(300))
        let slow = try await subscribe(f, as: "viewer", receiveBuffer: 2_048)
        let fast = try await subscribe(f, as: "member")
        #expect(f.server.http.openStreams == 2)
        let count = 300
        let title = String(repeating: "slow client ", count: 30)
        // The writer stays at most `lag` events (~450 bytes each) ahead of the fast reader, so
        // the fast one's queue never nears its 4 KiB however late its reads are scheduled (on a
        // loaded CI machine a reader unscheduled for 300 ms once overflowed like the slow one);
        // the slow one, reading nothing, overflows all the same.
        let lag = 4
        for number in 1...count {
            _ = try await f.service.createTask(in: f.team, TaskDraft(title: "\(number) \(title)"), as: .id(f.member.id))
            if number > lag {
                guard await fast.read(until: { _ in fast.changeEvents().count >= number - lag }, limit: .seconds(60)) else {
                    Issue.record("the fast reader got \(fast.changeEvents().count) events of the \(number) written")
                    break
                }
            }
        }
        #expect(await fast.read(until: { _ in fast.changeEvents().count >= count }, limit: .seconds(60)))
        let events = fast.changeEvents()
        #expect(events.count == count)
        #expect(events.map(\.id) == events.map(\.id).sorted() && Set(events.map(\.id)).count == count)
        // The server cuts the slow one off without its reading anything (only the fast one is
        // left); its socket then ends once what the kernel held is read.
        let deadline = ContinuousClock.now + .seconds(10)
        while f.server.http.openStreams > 1, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(f.server.http.openStreams == 1)
        #expect(await slow.readUntilClosed(limit: .seconds(10)))
        #expect(slow.changeEvents().count < count)
        await f.stop()
    }

    @Test("a stream ends at the next heartbeat once its token's user is disabled", arguments: StoreKind.allCases)
    func disabledUserIsCutOff(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store, heartbeat: .milliseconds(100))
        let stream = try await subscribe(f, as: "viewer")
        #expect(await stream.read(until: { $0.contains(": keep-alive") }))
        _ = try await f.service.setUserDisabled(.id(f.viewer.id), true)
        #expect(await stream.readUntilClosed())
        await f.stop()
    }

    /// Who revokes the stream's token: its user through this server's API, or another process
    /// (for PostgreSQL a store of its own, as `taskctl token revoke`'s session: this server hears
    /// of it only by the doorbell's NOTIFY).
    enum Revoker: String, CaseIterable, Sendable {
        case api, anotherProcess
    }

    @Test(
        "a revoked token's stream ends at once, long before the heartbeat, with no event made after the revocation",
        arguments: StoreKind.allCases, Revoker.allCases)
    func revokedTokenIsCutOff(store: StoreKind, revoker: Revoker) async throws {
        // A heartbeat longer than the test's bound: the stream cannot end by it.
        let f = try await ServerFixture.start(store, heartbeat: .seconds(120))
        let stream = try await subscribe(f, as: "viewer")
        let token = try #require(try await f.service.tokens(of: .id(f.viewer.id)).first)
        switch revoker {
        case .api:
            #expect(try await f.client("viewer").send("DELETE", "/v1/me/tokens/\(token.id)").status == 204)
        case .anotherProcess:
            let elsewhere =
                store == .postgres
                ? TaskService(store: try await PostgresTaskStore.open(config: try await TestDatabases.shared.value, maxConnections: 1)) : f.service
            _ = try await elsewhere.revokeToken(token.id)
        }
        _ = try await f.client("member").send("POST", "/v1/teams/\(f.team)/tasks", json: #"{"title": "After revocation"}"#)
        #expect(await stream.readUntilClosed(limit: .seconds(20)), "\(stream.text.debugDescription)")
        #expect(!stream.text.contains("After revocation"))
        await f.stop()
    }

    /// The machine's clock, moved on by the test.
    final class ShiftedClock: Sendable {
        private let shift = Mutex<TimeInterval>(0)

        func advance(by seconds: TimeInterval) { shift.withLock { $0 += seconds } }

        var clock: TaskClock { TaskClock { [self] in Date().addingTimeInterval(shift.withLock { $0 }) } }
    }

    /// An API token's expiry, checked where a token is judged: in the verifier's cache (a token
    /// that answered a moment ago), at the store's lookup (one not cached, as in another
    /// process or after a ring of the doorbell), and at a stream's heartbeat.
    @Test(
        "an API token past its expiry is refused, cached or not, with the invalid_token challenge, and its open stream ends at the next heartbeat",
        arguments: StoreKind.allCases)
    func expiredTokenIsCutOff(store: StoreKind) async throws {
        let time = ShiftedClock()
        let f = try await ServerFixture.start(store: try await store.make(), heartbeat: .milliseconds(200), clock: time.clock)
        let viewer = f.client("viewer")
        #expect(try await viewer.get("/v1/me").status == 200)
        let stream = try await subscribe(f, as: "viewer")
        #expect(await stream.read(until: { $0.contains(": keep-alive") }))
        time.advance(by: 3_601)  // the fixture's tokens live an hour
        let refused = try await viewer.get("/v1/me")
        #expect(refused.status == 401)
        #expect(refused.header("WWW-Authenticate") == APIRouteTests.invalidTokenChallenge)
        #expect(await stream.readUntilClosed(limit: .seconds(15)), "the stream outlived its token: \(stream.text.debugDescription)")
        let uncached = TokenVerifier(service: f.service, secrets: ServerFixture.secrets)
        #expect(await !uncached.stillValid(try #require(f.tokens["viewer"])), "an expired token outside the cache was taken as valid")
        #expect(await !uncached.stillValid(try #require(f.tokens["owner"])))
        time.advance(by: -3_601)
        #expect(await uncached.stillValid(try #require(f.tokens["owner"])), "the same token before its expiry is valid")
        await f.stop()
    }

    /// Expiry changes nothing in the token cache, so the check before each event (which looks
    /// again only when the cache was emptied) let events through until the next heartbeat, 15 s
    /// by default, looked: an audit's finding.
    @Test("no event made after the stream's token expired goes out, long before the next heartbeat", arguments: StoreKind.allCases)
    func noEventAfterExpiry(store: StoreKind) async throws {
        let time = ShiftedClock()
        let f = try await ServerFixture.start(store: try await store.make(), heartbeat: .seconds(60), clock: time.clock)
        let stream = try await subscribe(f, as: "viewer")
        _ = try await f.service.createTask(in: f.team, TaskDraft(title: "Before expiry"), as: .id(f.member.id))
        #expect(await stream.read(until: { $0.contains("Before expiry") }), "\(stream.text.debugDescription)")
        time.advance(by: 3_601)  // the fixture's tokens live an hour
        _ = try await f.service.createTask(in: f.team, TaskDraft(title: "After expiry"), as: .id(f.member.id))
        #expect(await stream.readUntilClosed(limit: .seconds(45)), "the stream outlived its token: \(stream.text.debugDescription)")
        #expect(!stream.text.contains("After expiry"), "\(stream.text.debugDescription)")
        await f.stop()
    }

    /// Resumed past the log's end (a database restored from an older copy), with changes
    /// committed between the stream's opening and its first read of the log: the first read
    /// began after the client's point, found the next sequence there, and sent no resync, so
    /// the changes before it (numbered like the ones the client kept from the old log) were
    /// skipped: an audit's finding.
    @Test(
        "resumed past the log's end while changes commit, a stream sends a resync through the end first, then every change after it",
        arguments: StoreKind.allCases)
    func resumePastEndWhileWriting(store: StoreKind) async throws {
        let opened = Mutex(false)
        let f = try await ServerFixture.start(
            store: try await store.make(),
            afterStreamOpened: {
                opened.withLock { $0 = true }
                // Long enough for the test's three writes to commit before the stream reads on.
                try? await Task.sleep(for: .seconds(2))
            })
        _ = try await f.service.createTask(in: f.team, TaskDraft(title: "Logged"), as: .id(f.member.id))
        let end = try await f.service.changeLog(in: f.team, after: 0, limit: 100, as: .id(f.viewer.id)).lastSequence
        let connection = try RawConnection(port: f.server.http.port)
        connection.get("/v1/teams/\(f.team)/events", headers: ["Authorization": "Bearer \(f.tokens["viewer"]!)", "Last-Event-ID": "\(end + 2)"])
        try await waitUntil("the stream to open", limit: .seconds(45)) { opened.withLock { $0 } }
        for title in ["One", "Two", "Three"] {
            _ = try await f.service.createTask(in: f.team, TaskDraft(title: title), as: .id(f.member.id))
        }
        #expect(
            await connection.read(until: { _ in connection.changeEvents().count >= 3 }, limit: .seconds(45)), "\(connection.text.debugDescription)")
        let text = connection.text
        let resync = try #require(text.range(of: "event: resync\ndata: {\"through\": \(end)}"), "no resync through \(end): \(text.debugDescription)")
        let firstChange = try #require(text.range(of: "event: change"))
        #expect(resync.lowerBound < firstChange.lowerBound)
        #expect(connection.changeEvents().map(\.id) == [end + 1, end + 2, end + 3])
        await f.stop()
    }

    /// A client gone without closing (out of coverage) acknowledges nothing, and heartbeats
    /// written into the kernel's buffer count as activity: only the kernel's retransmissions
    /// ended such a stream, after about 15 minutes (an audit's finding). The server's end of a
    /// stream now gives a silent peer up after 60 s; a plain request's keeps the kernel's default.
    @Test("an event stream's socket gives up a peer that acknowledges nothing for 60 s (TCP_USER_TIMEOUT); others keep the default")
    func deadPeerTimeout() async throws {
        let f = try await ServerFixture.start(.memory)
        let stream = try await subscribe(f, as: "viewer")
        let plain = try RawConnection(port: f.server.http.port)
        plain.get("/healthz")
        #expect(await plain.read(until: { $0.hasPrefix("HTTP/1.1 200") }))
        func userTimeout(_ connection: RawConnection) throws -> UInt32 {
            let socket = try #require(connection.serverSocket, "the server's end of the connection")
            var value: UInt32 = 0
            var length = socklen_t(MemoryLayout<UInt32>.size)
            #expect(getsockopt(socket, Int32(IPPROTO_TCP), TCP_USER_TIMEOUT, &value, &length) == 0)
            return value
        }
        #expect(try userTimeout(stream) == 60_000)
        #expect(try userTimeout(plain) == 0)
        await f.stop()
    }

    /// No limit once held: one token could open streams until every connection the server
    /// takes (1,024) was one, and everyone else waited (an audit's finding).
    @Test("a user's streams past --max-streams-per-user are 429 with Retry-After; others' are not, and one closed makes room")
    func streamsPerUser() async throws {
        let f = try await ServerFixture.start(store: try await StoreKind.memory.make(), maxStreamsPerUser: 2)
        // The member's first stream is of another team, which ends it, server-side and at once,
        // by removing them from that team (a client hanging up is noticed only when the server
        // next writes, which the parallel suite can hold up for long).
        let other = try await f.service.createTeam(key: "O" + f.team.rawValue.dropFirst(), name: "Other", as: .id(f.owner.id))
        _ = try await f.service.setRole(.member, for: .id(f.member.id), in: other.key, as: .id(f.owner.id))
        // Each connection held to the end: one let go closes, and its stream ends with it.
        let first = try await subscribe(f, as: "member", to: other.key)
        let second = try await subscribe(f, as: "member")
        let third = try RawConnection(port: f.server.http.port)
        third.get("/v1/teams/\(f.team)/events", headers: ["Authorization": "Bearer \(f.tokens["member"]!)"])
        #expect(await third.read(until: { $0.contains("\r\n\r\n") && $0.contains("}") }), "\(third.text.debugDescription)")
        #expect(third.text.hasPrefix("HTTP/1.1 429"), "\(third.text.debugDescription)")
        #expect(third.text.contains("Retry-After: 5") && third.text.contains("--max-streams-per-user"), "\(third.text.debugDescription)")
        // Another user is not counted with them.
        let viewer = try await subscribe(f, as: "viewer")
        #expect(f.server.http.openStreams == 3)
        // One of theirs ended, the place is theirs again.
        _ = try await f.service.removeMember(.id(f.member.id), from: other.key, as: .id(f.owner.id))
        #expect(await first.readUntilClosed(limit: .seconds(45)), "\(first.text.debugDescription)")
        try await waitUntil("the ended stream to be let go", limit: .seconds(45)) { f.server.http.openStreams == 2 }
        let again = try await subscribe(f, as: "member")
        #expect(again.text.hasPrefix("HTTP/1.1 200"), "\(again.text.debugDescription)")
        withExtendedLifetime((second, viewer)) {}
        await f.stop()
    }

    @Test("a stream that falls behind its bound is closed, and the bound holds")
    func slowClientBuffer() {
        let buffer = EventStreamBuffer(capacity: 100)
        #expect(buffer.write(String(repeating: "x", count: 60)))
        #expect(!buffer.write(String(repeating: "y", count: 60)))
        #expect(buffer.overflowed)
        #expect(buffer.isClosed)
        #expect(!buffer.write("more"))
    }
}

@Suite("HTTP limits and hostile clients")
struct HostileClientTests {
    /// Two connections held open (keep-alive, so counted), for the caps below.
    func holdTwo(_ f: ServerFixture) async throws -> [RawConnection] {
        var held: [RawConnection] = []
        for _ in 0..<2 {
            let connection = try RawConnection(port: f.server.http.port)
            connection.get("/healthz")
            #expect(await connection.read(until: { $0.hasPrefix("HTTP/1.1 200") && $0.hasSuffix("\n") }), "\(connection.text)")
            held.append(connection)
        }
        return held
    }

    /// `--max-connections`: at the cap the daemon stops accepting, and a client waits (in the
    /// kernel's queue) until a connection ends, then is served at once. The daemon took its
    /// listening socket back only on a later run, so a waiting client was served only when some
    /// other connection timed out (30 s idle by default; here 120 s, beyond the test's bound).
    @Test("a client beyond the server's connection cap waits, and is served as soon as another connection ends")
    func connectionCap() async throws {
        let f = try await ServerFixture.start(.memory, limits: HTTPServerLimits(maxConnections: 2, idleTimeoutSeconds: 120))
        var held = try await holdTwo(f)
        let waiting = try RawConnection(port: f.server.http.port)
        waiting.get("/healthz", headers: ["Connection": "close"])
        #expect(await !waiting.read(until: { !$0.isEmpty }, limit: .seconds(1)), "a client beyond the cap was served: \(waiting.text)")
        held.removeLast().hangUp()
        #expect(
            await waiting.read(until: { $0.hasPrefix("HTTP/1.1 200") }, limit: .seconds(20)), "the waiting client was not served: \(waiting.text)")
        await f.stop()
    }

    /// `--max-connections-per-address`: a connection beyond an address's cap is closed
    /// unanswered, and the address is served again once one of its connections ends.
    @Test("a connection beyond one address's cap is closed unanswered; the address is served again once one of its connections ends")
    func connectionCapPerAddress() async throws {
        let f = try await ServerFixture.start(.memory, limits: HTTPServerLimits(maxConnectionsPerAddress: 2, idleTimeoutSeconds: 120))
        var held = try await holdTwo(f)
        let beyond = try RawConnection(port: f.server.http.port)
        beyond.get("/healthz")
        #expect(await beyond.readUntilClosed(limit: .seconds(10)), "the connection beyond the cap was kept open")
        #expect(beyond.text.isEmpty, "the connection beyond the cap was answered: \(beyond.text)")
        held.removeLast().hangUp()
        try await waitUntil("the address to be served again") {
            let next = try RawConnection(port: f.server.http.port)
            next.get("/healthz", headers: ["Connection": "close"])
            _ = await next.readUntilClosed(limit: .seconds(5))
            return next.text.hasPrefix("HTTP/1.1 200")
        }
        await f.stop()
    }

    @Test("headers over the memory cap are refused with 431 (or the connection closed), never served")
    func oversizeHeaders() async throws {
        let f = try await ServerFixture.start(.memory, limits: HTTPServerLimits(headerMemoryBytes: 8_192))
        let connection = try RawConnection(port: f.server.http.port)
        connection.get("/v1/me", headers: ["Authorization": "Bearer \(f.tokens["member"]!)", "X-Filler": String(repeating: "a", count: 20_000)])
        _ = await connection.readUntilClosed(limit: .seconds(5))
        // 431 (RFC 6585 §5), or nothing read at all: the daemon closes as it answers, and a reset
        // that reaches this end before the answer was read discards it. OpenAPITests' headersTooLarge
        // holds the status itself.
        #expect(connection.text.hasPrefix("HTTP/1.1 431") || connection.text.isEmpty, "\(connection.text.prefix(200))")
        #expect(!connection.text.contains(f.member.email))
        #expect(try await f.client("member").get("/v1/me").status == 200)
        await f.stop()
    }

    @Test("a slow-loris client that never finishes its headers is dropped after the idle timeout; others are served meanwhile")
    func slowLoris() async throws {
        let f = try await ServerFixture.start(.memory, limits: HTTPServerLimits(idleTimeoutSeconds: 1))
        let loris = try RawConnection(port: f.server.http.port)
        loris.send("GET /v1/me HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        #expect(try await f.client("member").get("/v1/me").status == 200)
        // Dropped about a second after its last byte; the bound is for a loaded machine (the
        // suites' first seconds, when this runs, are the busiest): without the idle timeout
        // the connection stays open until the server stops, which no bound would wait for.
        // 20 s, under the 30 s default idle timeout, so the bound also tells the option's value
        // took effect (the slowest seen on a loaded machine was 9 s).
        #expect(await loris.readUntilClosed(limit: .seconds(20)))
        await f.stop()
    }
}
