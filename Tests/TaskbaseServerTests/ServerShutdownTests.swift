import APITokens
import Foundation
import PGStore
import Synchronization
import TaskStorePG
@testable import TaskbaseServer
import TaskbaseTestSupport
import Testing

@Suite("Stopping with a request still being answered")
struct ServerShutdownTests {
    /// A handler that holds `/slow` until the test lets it go (cancelled or not), and notes when
    /// it answered and whether it was cancelled meanwhile.
    final class Gate: Sendable {
        let open = Mutex(false)
        let answered = Mutex(0)
        let cancelled = Mutex(0)

        func handle(_ request: HTTPRequest) async -> HTTPResponse {
            guard request.path == "/slow" || request.path == "/stream" else { return .empty(204) }
            await withCancellationShield { [self] in
                try? await waitUntil("the test to open the gate", limit: .seconds(60), every: .milliseconds(10)) { self.open.withLock { $0 } }
            }
            if Task.isCancelled { cancelled.withLock { $0 += 1 } }
            answered.withLock { $0 += 1 }
            if request.path == "/stream" {
                return HTTPResponse(
                    status: 200, headers: [("Content-Type", "text/event-stream")], body: .stream(EventStreamBuffer(capacity: 1_024)))
            }
            return .empty(200)
        }
    }

    /// A server with one request for `path` (`/slow`, or `/stream` for an event stream) held in its handler.
    static func serverHoldingARequest(_ path: String = "/slow") async throws -> (HTTPServer, Gate, RawConnection) {
        let gate = Gate()
        let server = try HTTPServer.start(port: 0) { await gate.handle($0) }
        let connection = try RawConnection(port: server.port)
        connection.get(path)
        try await waitUntil("the request to reach the handler", limit: .seconds(10), every: .milliseconds(10)) { server.inFlight > 0 }
        #expect(server.inFlight == 1)
        return (server, gate, connection)
    }

    @Test("a handler slower than the grace is cancelled and its request answered 503, and its late answer touches nothing")
    func lateHandler() async throws {
        let (server, gate, connection) = try await Self.serverHoldingARequest()

        let started = ContinuousClock.now
        let cutOff = Mutex<[(path: String, status: Int, ran: Duration)]>([])
        await server.shutdown(grace: .milliseconds(300)) { request, response, ran in
            cutOff.withLock { $0.append((request.path, response.status, ran)) }
        }
        let took = ContinuousClock.now - started
        // The grace, then the daemon's turn to send the answer; never the handler's 60 s. The
        // bounds leave room for a parallel suite holding the cooperative threads for seconds.
        #expect(took >= .milliseconds(300) && took < .seconds(15), "shutdown took \(took)")
        #expect(await connection.read(until: { $0.contains("\r\n\r\n") && $0.contains("}") }, limit: .seconds(15)))
        #expect(connection.text.hasPrefix("HTTP/1.1 503"), "got: \(connection.text.prefix(200))")
        #expect(connection.text.lowercased().contains("retry-after: 1"))
        #expect(connection.text.contains("application/problem+json"))
        #expect(server.inFlight == 0)
        #expect(gate.answered.withLock { $0 } == 0)
        // What the access log is told of it: the request, the 503, at least the grace's run.
        let heard = cutOff.withLock { $0 }
        #expect(heard.count == 1 && heard.first?.path == "/slow" && heard.first?.status == 503)
        #expect((heard.first?.ran ?? .zero) >= .milliseconds(300))

        // The handler finishes after the daemon is gone: its answer must not resume a freed
        // connection (the test process would crash or hang here).
        gate.open.withLock { $0 = true }
        try await waitUntil("the late handler to answer", limit: .seconds(10), every: .milliseconds(10)) { gate.answered.withLock { $0 } > 0 }
        #expect(gate.answered.withLock { $0 } == 1)
        // Its task was cancelled when the grace ended (its database work, if any, rolled back).
        #expect(gate.cancelled.withLock { $0 } == 1)
        try await Task.sleep(for: .milliseconds(200))
        #expect(server.inFlight == 0)
        #expect(throws: (any Error).self) { try RawConnection(port: server.port) }
    }

    @Test("a request on a kept-open connection once shutdown has begun is refused 503 and the connection closed, its handler never run")
    func noNewRequestsWhileStopping() async throws {
        let (server, gate, held) = try await Self.serverHoldingARequest()
        let kept = try RawConnection(port: server.port)
        kept.get("/fast")
        #expect(await kept.read(until: { $0.hasPrefix("HTTP/1.1 204") }, limit: .seconds(10)), "\(kept.text)")
        let stopping = Task { await server.shutdown(grace: .seconds(5)) }
        try await waitUntil("shutdown to begin", limit: .seconds(10), every: .milliseconds(10)) { server.isStopping }
        // Once dispatched and answered during the grace: a server stopping under steady
        // keep-alive traffic could be stopped with such a request suspended.
        kept.get("/fast")
        #expect(await kept.readUntilClosed(limit: .seconds(10)), "the server closes the connection after the refusal")
        let second = kept.text.components(separatedBy: "HTTP/1.1 ").last ?? ""
        #expect(second.hasPrefix("503") && second.lowercased().contains("connection: close"), "\(kept.text)")
        #expect(second.contains("takes no new requests"))
        gate.open.withLock { $0 = true }
        await stopping.value
        #expect(await held.read(until: { $0.hasPrefix("HTTP/1.1 200") }, limit: .seconds(10)), "the held request still had its own answer")
    }

    @Test("a handler that answers within the grace is sent its own answer, and shutdown does not wait longer")
    func handlerWithinGrace() async throws {
        let (server, gate, connection) = try await Self.serverHoldingARequest()
        let opener = Task {
            try await Task.sleep(for: .milliseconds(200))
            gate.open.withLock { $0 = true }
        }
        let started = ContinuousClock.now
        let cutOff = Mutex(0)
        // A grace far longer than the bound: waiting it out fails, a starved machine does not.
        await server.shutdown(grace: .seconds(30)) { _, _, _ in cutOff.withLock { $0 += 1 } }
        let took = ContinuousClock.now - started
        try await opener.value
        #expect(cutOff.withLock { $0 } == 0)
        #expect(took < .seconds(15), "shutdown took \(took)")
        #expect(await connection.read(until: { $0.contains("\r\n\r\n") }, limit: .seconds(15)))
        #expect(connection.text.hasPrefix("HTTP/1.1 200"), "got: \(connection.text.prefix(200))")
    }

    @Test("an event stream whose handler answers once shutdown has begun is ended at once, not held to the grace's end")
    func streamStartedWhileStopping() async throws {
        let (server, gate, connection) = try await Self.serverHoldingARequest("/stream")
        let opener = Task {
            try await Task.sleep(for: .milliseconds(200))
            gate.open.withLock { $0 = true }
        }
        let started = ContinuousClock.now
        await server.shutdown(grace: .seconds(30))
        let took = ContinuousClock.now - started
        try await opener.value
        // Before, such a stream was closed only after the whole grace had run out.
        #expect(took < .seconds(15), "shutdown took \(took)")
        #expect(await connection.readUntilClosed(limit: .seconds(15)))
        #expect(connection.text.hasPrefix("HTTP/1.1 200"), "got: \(connection.text.prefix(200))")
        #expect(connection.text.lowercased().contains("text/event-stream"))
    }

    @Test("a request the grace cuts off is logged with its 503, its route and its token's prefix")
    func cutOffRequestIsLogged() async throws {
        try await TestDatabase.with(migrated: true, purpose: "server shutdown") { database in
            let lines = Mutex<[String]>([])
            let fixture = try await ServerFixture.start(
                store: try await PostgresTaskStore.open(config: database.config, maxConnections: 2),
                log: { line in lines.withLock { $0.append(line) } })
            // A task cannot be numbered while another session holds the counters.
            let blocker = try await database.holding("LOCK TABLE task_counters IN EXCLUSIVE MODE")
            let create = Task {
                try await fixture.client("owner").send("POST", "/v1/teams/\(fixture.team.rawValue)/tasks", json: #"{"title":"held"}"#)
            }
            try await waitUntil("the request to wait on the lock", limit: .seconds(10), every: .milliseconds(10)) { fixture.server.http.inFlight > 0 }
            await fixture.server.shutdown(grace: .milliseconds(300))
            #expect(try await create.value.status == 503)
            try await blocker.execute("ROLLBACK")
            await blocker.close()

            let cutOff = lines.withLock { $0 }.filter { $0.contains(#""status":503"#) }
            let prefix = TokenSecrets.prefix(of: fixture.tokens["owner"]!)
            #expect(cutOff.count == 1, "\(lines.withLock { $0 })")
            #expect(cutOff.first?.contains(#""route":"POST /v1/teams/{team}/tasks""#) == true, "\(cutOff)")
            #expect(cutOff.first?.contains(#""token":"\#(prefix)""#) == true, "\(cutOff)")
        }
    }
}
