import Foundation
import TaskCore
import TaskbaseServer
import TaskbaseWire
import Testing

@Suite("The event stream (Server-Sent Events) over both stores")
struct EventStreamTests {
    func subscribe(_ f: ServerFixture, as role: String, headers: [String: String] = [:]) async throws -> RawConnection {
        let connection = try RawConnection(port: f.server.http.port)
        connection.get("/v1/teams/\(f.team)/events", headers: ["Authorization": "Bearer \(f.tokens[role]!)"].merging(headers) { $1 })
        #expect(await connection.read(until: { $0.contains(": connected") }))
        return connection
    }

    @Test("every change arrives in order with its sequence as id and the ChangeDocument as data", arguments: StoreKind.allCases)
    func order(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store)
        let stream = try await subscribe(f, as: "viewer")
        #expect(stream.text.hasPrefix("HTTP/1.1 200"))
        #expect(stream.text.contains("Content-Type: text/event-stream"))
        let member = f.client("member")
        let created = try await member.send("POST", "/v1/teams/\(f.team)/tasks", json: #"{"title": "Streamed"}"#).decode(TaskDocument.self)
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
        await f.stop()
    }

    @Test("outsiders get 404 and no stream; a member removed while watching is cut off", arguments: StoreKind.allCases)
    func access(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store)
        #expect(try await f.client("outsider").get("/v1/teams/\(f.team)/events").status == 404)
        #expect(try await f.client().get("/v1/teams/\(f.team)/events").status == 401)
        let stream = try await subscribe(f, as: "viewer")
        #expect(try await f.client("owner").send("DELETE", "/v1/teams/\(f.team)/members/\(f.viewer.email)").status == 204)
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
        let started = ContinuousClock.now
        await f.server.shutdown(grace: .seconds(5))
        #expect(ContinuousClock.now - started < .seconds(5))
        #expect(await stream.readUntilClosed())
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
    @Test("headers over the memory cap are refused with 431 (or the connection closed), never served")
    func oversizeHeaders() async throws {
        let f = try await ServerFixture.start(.memory, limits: HTTPServerLimits(headerMemoryBytes: 8_192))
        let connection = try RawConnection(port: f.server.http.port)
        connection.get("/v1/me", headers: ["Authorization": "Bearer \(f.tokens["member"]!)", "X-Filler": String(repeating: "a", count: 20_000)])
        _ = await connection.readUntilClosed(limit: .seconds(5))
        #expect(connection.text.hasPrefix("HTTP/1.1 431") || connection.text.hasPrefix("HTTP/1.1 413") || connection.text.isEmpty)
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
        #expect(await loris.readUntilClosed(limit: .seconds(5)))
        await f.stop()
    }
}
