import Foundation
import Hashing
import Synchronization
import TaskCore
@testable import TaskbaseServer
import TaskbaseWire
import TaskbaseTestSupport
import Testing

@Suite("Bodies that go to a temporary file")
struct SpooledBodyTests {
    /// What the handler saw of each request.
    struct Seen: Sendable {
        var inMemory: Int
        var spooled: Int?
        var matches: Bool
        var digest: [UInt8]?
    }

    /// The requests the handler saw.
    final class Log: Sendable {
        let seen = Mutex<[Seen]>([])
        var first: Seen? { seen.withLock { $0.first } }
    }

    /// A server whose `/spool` route spools (cap 8 MiB) and whose other routes do not; the
    /// handler notes what it got.
    static func server(log: Log, expected: [UInt8]) throws -> HTTPServer {
        try HTTPServer.start(
            port: 0, limits: HTTPServerLimits(maxBodyBytes: 1 << 16),
            bodyPolicy: { _, path in path == "/spool" ? HTTPBodyPolicy(maxBytes: 8 << 20, spoolsToFile: true) : HTTPBodyPolicy() }
        ) { request in
            let spooledBytes = try? request.spooledBody?.bytes()
            log.seen.withLock {
                $0.append(
                    Seen(
                        inMemory: request.body.count, spooled: request.spooledBody?.byteCount,
                        matches: (spooledBytes ?? request.body) == expected, digest: request.spooledBody?.digest))
            }
            return .empty(204)
        }
    }

    @Test("a spooling route's body is in the file, none of it in memory, with its SHA-256; other routes keep theirs in memory")
    func spools() async throws {
        var generator = SystemRandomNumberGenerator()
        let body = (0..<(3 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let log = Log()
        let server = try Self.server(log: log, expected: body)
        let client = HTTPClient(baseURL: "http://127.0.0.1:\(server.port)")
        #expect(try await client.send("POST", "/spool", body: Data(body)).status == 204)
        let small = Array(body.prefix(1_000))
        let smallLog = Log()
        let other = try Self.server(log: smallLog, expected: small)
        #expect(try await HTTPClient(baseURL: "http://127.0.0.1:\(other.port)").send("POST", "/other", body: Data(small)).status == 204)
        await server.shutdown()
        await other.shutdown()
        let spooled = try #require(log.first)
        #expect(spooled.inMemory == 0)
        #expect(spooled.spooled == body.count)
        #expect(spooled.matches)
        var hasher = SHA256()
        hasher.update(body)
        let digest = hasher.finalize()
        #expect(spooled.digest == digest)
        let inMemory = try #require(smallLog.first)
        #expect(inMemory.inMemory == small.count && inMemory.spooled == nil && inMemory.matches)
    }

    @Test(
        "a body the server cannot store is 503 with Retry-After 5 whether the HTTP layer met it or a handler (an import unpacking gzip); another 503 a handler throws says 1"
    )
    func cannotStoreSaysFive() {
        func retryAfter(_ response: HTTPResponse) -> String? { response.headers.first { $0.name == "Retry-After" }?.value }
        #expect(ServerProblems.cannotSpool().status == 503)
        #expect(retryAfter(ServerProblems.cannotSpool()) == "5")
        // What an import that cannot spool its unpacked body throws, and a plain thrown 503.
        #expect(retryAfter(ServerProblems.cannotSpoolRefusal.response) == "5")
        #expect(ServerProblems.cannotSpoolRefusal.response.status == 503)
        #expect(retryAfter(ServerProblems.response(thrown: ProblemDocument(.unavailable, detail: "busy"))) == "1")
        #expect(retryAfter(ServerProblems.response(thrown: ProblemDocument(.payloadTooLarge, detail: "big"))) == nil)
    }

    @Test("a spooled body over the route's cap is 413 and never reaches the handler")
    func capped() async throws {
        let log = Log()
        let server = try Self.server(log: log, expected: [])
        // The headers alone are refused. (Sending the 8 MiB as well raced the server's close:
        // a client still writing could get a broken pipe instead of reading the 413.)
        let connection = try RawConnection(port: server.port)
        connection.send("POST /spool HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \((8 << 20) + 1)\r\n\r\n")
        #expect(await connection.read(until: { $0.contains("\r\n\r\n") }), "\(connection.text)")
        await server.shutdown()
        #expect(connection.text.hasPrefix("HTTP/1.1 413"), "\(connection.text.prefix(200))")
        #expect(log.first == nil)
    }

    @Test("a chunked body a little over the cap is 413; one that goes on is cut off soon after the cap, not read to its end")
    func chunkedOverCap() async throws {
        let server = try Self.server(log: Log(), expected: [])
        let head = "POST /plain HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n"
        let chunk = Array("10000\r\n".utf8) + [UInt8](repeating: 0x78, count: 1 << 16) + Array("\r\n".utf8)
        let over = try RawConnection(port: server.port)
        over.send(head)
        over.send(bytes: chunk + Array("400\r\n".utf8) + [UInt8](repeating: 0x78, count: 1 << 10) + Array("\r\n0\r\n\r\n".utf8))
        #expect(await over.read(until: { $0.contains("\r\n\r\n") }), "\(over.text)")
        #expect(over.text.hasPrefix("HTTP/1.1 413"), "\(over.text.prefix(200))")

        // A body without end, as fast as the server takes it: bounded at 256 MiB and 60 s.
        let endless = try RawConnection(port: server.port)
        endless.send(head)
        var sent = 0, closed = false
        let deadline = ContinuousClock.now + .seconds(60)
        while sent < 256 << 20, ContinuousClock.now < deadline {
            guard let count = endless.sendWhileOpen(bytes: chunk) else {
                closed = true
                break
            }
            sent += count
            if count < chunk.count { break }  // part of a chunk went: the frame is broken anyway
        }
        if !closed { closed = await endless.readUntilClosed(limit: .seconds(10)) }
        #expect(closed, "the server read \(sent >> 20) MiB of a body capped at 64 KiB and kept the connection")
        // The cap, the 1 MiB the server reads past it, and what loopback's buffers hold.
        #expect(sent < 64 << 20, "\(sent >> 20) MiB went before the connection closed")
        await server.shutdown()
    }

    @Test("uploads past maxSpooledBodies are refused 503 before a byte is stored; a slot frees when its upload ends")
    func uploadsBounded() async throws {
        let log = Log()
        let server = try HTTPServer.start(
            port: 0, limits: HTTPServerLimits(maxSpooledBodies: 2),
            bodyPolicy: { _, path in path == "/spool" ? HTTPBodyPolicy(maxBytes: 8 << 20, spoolsToFile: true) : HTTPBodyPolicy() }
        ) { request in
            log.seen.withLock { $0.append(Seen(inMemory: 0, spooled: request.spooledBody?.byteCount, matches: true, digest: nil)) }
            return .empty(204)
        }
        // Two uploads that never finish (as anyone can send before a token is checked) once held
        // a file each, without end: 1,024 of them 64 GiB of TMPDIR.
        let head = "POST /spool HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 10\r\n\r\n"
        let slow = try (0..<2).map { _ in try RawConnection(port: server.port) }
        for connection in slow { connection.send(head + "12345") }
        try await Task.sleep(for: .milliseconds(300))
        let refused = try RawConnection(port: server.port)
        refused.send(head)
        #expect(await refused.read(until: { $0.contains("\r\n\r\n") && $0.contains("}") }), "\(refused.text)")
        #expect(refused.text.hasPrefix("HTTP/1.1 503") && refused.text.contains("uploads already"), "\(refused.text.prefix(300))")
        #expect(refused.text.lowercased().contains("retry-after: 1"))
        // One finishes: its slot is free again once it is answered.
        slow[0].send("67890")
        #expect(await slow[0].read(until: { $0.hasPrefix("HTTP/1.1 204") }), "\(slow[0].text)")
        try await Task.sleep(for: .milliseconds(200))
        let next = try RawConnection(port: server.port)
        next.send(head + "abcdefghij")
        #expect(await next.read(until: { $0.hasPrefix("HTTP/1.1 204") }), "\(next.text.prefix(200))")
        #expect(log.seen.withLock { $0.map(\.spooled) } == [10, 10])
        await server.shutdown(grace: .milliseconds(200))
    }

    /// The head of an import whose body (`length` bytes announced) is still to come.
    static func importHead(_ f: ServerFixture, token: String, length: Int) -> String {
        "POST /v1/teams/\(f.team)/imports HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/csv\r\n"
            + "Authorization: Bearer \(token)\r\nContent-Length: \(length)\r\n\r\n"
    }

    /// Whether `connection` was answered 401 with the bearer challenge.
    static func refused401(_ connection: RawConnection) -> Bool {
        connection.text.hasPrefix("HTTP/1.1 401") && connection.text.contains("WWW-Authenticate: Bearer")
    }

    @Test(
        "uploads with a token that verifies nothing are 401 from their headers and hold no slot: trickled, they once held every slot and a member's import was 503",
        arguments: StoreKind.allCases)
    func junkTokensHoldNoSlot(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store, limits: HTTPServerLimits(idleTimeoutSeconds: 4, maxSpooledBodies: 2))
        // The attack: as many uploads as the cap, no valid credential, 100 kB announced, then a
        // byte now and then, so that the idle timeout (which each byte restarts) never ends them.
        let junk = try (0..<2).map { _ in try RawConnection(port: f.server.http.port) }
        for connection in junk { connection.send(Self.importHead(f, token: "junk", length: 100_000) + "T") }
        for _ in 0..<3 {
            try await Task.sleep(for: .milliseconds(150))
            for connection in junk {
                connection.readAvailable()
                if !connection.text.contains("\r\n\r\n") { connection.send("x") }
            }
        }
        // Meanwhile a member imports: the junk must not have taken the slots.
        let reply = try await f.client("member").send(
            "POST", "/v1/teams/\(f.team)/imports", body: Data("Title\nReal work\n".utf8), headers: ["Content-Type": "text/csv"])
        #expect(reply.status == 200, "\(reply.status) \(reply.text)")
        for connection in junk {
            #expect(await connection.read(until: { $0.contains("\r\n\r\n") }, limit: .seconds(30)), "no answer: \(connection.text)")
            #expect(Self.refused401(connection), "\(connection.text.prefix(300))")
            // Refused, the connection is closed, not kept reading (or spinning on) the body.
            #expect(await connection.readUntilClosed(limit: .seconds(30)), "the refused upload's connection stayed open")
        }
        await f.stop()
    }

    @Test("one user's uploads past --max-uploads-per-user are 503 before a byte is stored, while another user's go through")
    func uploadsPerUserBounded() async throws {
        let f = try await ServerFixture.start(.memory, limits: HTTPServerLimits(maxSpooledBodies: 4, maxSpooledBodiesPerUser: 1))
        let body = "Title\nHeld upload\n"
        let held = try RawConnection(port: f.server.http.port)
        held.send(Self.importHead(f, token: try #require(f.tokens["member"]), length: body.utf8.count) + "Title\n")
        try await waitUntil("the held upload to take its slot", limit: .seconds(45)) { f.server.http.spoolingBodies == 1 }
        func post(_ role: String) async throws -> HTTPClient.Reply {
            try await f.client(role).send(
                "POST", "/v1/teams/\(f.team)/imports", body: Data("Title\nFrom \(role)\n".utf8), headers: ["Content-Type": "text/csv"])
        }
        let refused = try await post("member")
        #expect(refused.status == 503 && refused.text.contains("--max-uploads-per-user"), "\(refused.status) \(refused.text)")
        #expect(refused.header("Retry-After") == "1")
        #expect(try await post("owner").status == 200, "another user's upload has a slot")
        held.send(String(body.dropFirst("Title\n".count)))
        #expect(await held.read(until: { $0.hasPrefix("HTTP/1.1 200") }, limit: .seconds(45)), "\(held.text.prefix(300))")
        try await waitUntil("the held upload's slot to be free", limit: .seconds(45)) { f.server.http.spoolingBodies == 0 }
        #expect(try await post("member").status == 200, "the user's slot is free again once the upload is answered")
        await f.stop()
    }

    /// What holds an admission check back until the test lets it go.
    final class Gate: Sendable {
        let isOpen: Mutex<Bool>
        init(open: Bool) { isOpen = Mutex(open) }
    }

    /// A server whose `/spool` route spools and whose admission check admits `Authorization:
    /// ok` (as "u") once `gate` opens (20 s at most), and refuses anything else 401.
    static func admittingServer(gate: Gate, limits: HTTPServerLimits = HTTPServerLimits()) throws -> HTTPServer {
        try HTTPServer.start(
            port: 0, limits: limits,
            bodyPolicy: { _, path in path == "/spool" ? HTTPBodyPolicy(maxBytes: 8 << 20, spoolsToFile: true) : HTTPBodyPolicy() },
            admitUpload: { request in
                let deadline = ContinuousClock.now + .seconds(20)
                while !gate.isOpen.withLock({ $0 }), ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
                guard request.header("authorization") == "ok" else { return .refused(ServerProblems.unauthorized("no")) }
                return .admitted(holder: "u")
            }
        ) { request in .empty(request.spooledBody?.byteCount == 10 ? 204 : 400) }
    }

    @Test("Expect: 100-continue is answered only once the upload is admitted; a refused one gets its 401 and no 100")
    func continueAfterAdmission() async throws {
        let server = try Self.admittingServer(gate: Gate(open: true))
        let head = "POST /spool HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: 100-continue\r\nContent-Length: 10\r\n"
        let refused = try RawConnection(port: server.port)
        refused.send(head + "Authorization: junk\r\n\r\n")
        #expect(await refused.read(until: { $0.contains("\r\n\r\n") }, limit: .seconds(30)), "\(refused.text)")
        #expect(refused.text.hasPrefix("HTTP/1.1 401"), "\(refused.text.prefix(200))")
        let admitted = try RawConnection(port: server.port)
        admitted.send(head + "Authorization: ok\r\n\r\n")
        #expect(await admitted.read(until: { $0.contains("\r\n\r\n") }, limit: .seconds(30)), "\(admitted.text)")
        #expect(admitted.text.hasPrefix("HTTP/1.1 100"), "\(admitted.text.prefix(200))")
        admitted.send("0123456789")
        #expect(await admitted.read(until: { $0.contains("HTTP/1.1 204") }, limit: .seconds(30)), "\(admitted.text)")
        await server.shutdown(grace: .milliseconds(200))
    }

    @Test("shutdown answers an upload still waiting on its admission check 503 and stops at once; nothing of it was read")
    func shutdownWhileAdmitting() async throws {
        let gate = Gate(open: false)
        let server = try Self.admittingServer(gate: gate)
        let waiting = try RawConnection(port: server.port)
        waiting.send("POST /spool HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ok\r\nContent-Length: 10\r\n\r\n01234")
        try await Task.sleep(for: .milliseconds(200))
        let started = ContinuousClock.now
        await server.shutdown(grace: .milliseconds(300))
        #expect(ContinuousClock.now - started < .seconds(15))
        #expect(await waiting.read(until: { $0.contains("\r\n\r\n") }, limit: .seconds(30)), "\(waiting.text)")
        #expect(waiting.text.hasPrefix("HTTP/1.1 503"), "\(waiting.text.prefix(200))")
        gate.isOpen.withLock { $0 = true }
    }

    @Test(
        "an upload's token is verified before a byte is stored: unknown, malformed, revoked and expired are 401 at once and take no slot; a valid one still imports",
        arguments: StoreKind.allCases)
    func uploadTokenVerifiedFirst(store: StoreKind) async throws {
        let time = EventStreamTests.ShiftedClock()
        let f = try await ServerFixture.start(
            store: try await store.make(), limits: HTTPServerLimits(idleTimeoutSeconds: 60, maxSpooledBodies: 1), clock: time.clock)
        func mint(lifetime: TimeInterval) async throws -> (secret: String, id: TokenID) {
            let (secret, digest) = try ServerFixture.secrets.generate()
            return (secret, try await f.service.createToken(for: .id(f.member.id), name: "upload", lifetime: lifetime, digest: digest).id)
        }
        let revoked = try await mint(lifetime: 3_600)
        _ = try await f.service.revokeToken(revoked.id)
        let expiring = try await mint(lifetime: 60)
        time.advance(by: 61)
        let unknown = try ServerFixture.secrets.generate().secret
        // Each announces a large body and sends a little of it: answered from its headers, or
        // it would hold the only slot for as long as it trickled.
        var held: [RawConnection] = []
        for token in [unknown, "not-a-token", revoked.secret, expiring.secret] {
            let connection = try RawConnection(port: f.server.http.port)
            connection.send(Self.importHead(f, token: token, length: 100_000) + "Title\n")
            // Within milliseconds alone; the bound is for the whole suite on two cores.
            #expect(await connection.read(until: { $0.contains("\r\n\r\n") }, limit: .seconds(30)), "no answer before the body: \(token.prefix(6))")
            #expect(Self.refused401(connection) && connection.text.contains("invalid_token"), "\(connection.text.prefix(300))")
            held.append(connection)
        }
        // A valid token's upload, its body in two pieces, takes the one slot and imports.
        let body = "Title\nFrom a verified upload\n"
        let valid = try RawConnection(port: f.server.http.port)
        valid.send(Self.importHead(f, token: try #require(f.tokens["member"]), length: body.utf8.count) + "Title\n")
        try await Task.sleep(for: .milliseconds(100))
        valid.send(String(body.dropFirst("Title\n".count)))
        #expect(await valid.read(until: { $0.contains("\r\n\r\n") && $0.contains("}") }, limit: .seconds(45)), "\(valid.text)")
        #expect(valid.text.hasPrefix("HTTP/1.1 200"), "\(valid.text.prefix(400))")
        #expect(try await f.client("owner").get("/v1/teams/\(f.team)/summary").decode(SummaryDocument.self).total == 1)
        withExtendedLifetime(held) {}
        await f.stop()
    }

    @Test("the spool file is unlinked at once: nothing of a body is left in the temporary directory")
    func unlinked() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("spool-test-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let spool = try #require(BodySpool(directory: directory))
        let text = Array("title\nWrite the report\n".utf8)
        #expect(text.withUnsafeBytes { spool.append($0.baseAddress!, count: $0.count) })
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
        let body = spool.finish()
        #expect(try body.bytes() == text)
        #expect(try body.bytes() == text)  // read again from the start
        #expect(BodySpool(directory: directory + "/missing") == nil)
    }
}
