import APITokens
import Foundation
import Hashing
import Synchronization
import TaskCore
import Testing

@testable import TaskbaseServer

@Suite("X-Request-Id: one id per request, in the answer and in the access log")
struct RequestIDTests {
    @Test("a usable X-Request-Id is kept; one too long, with spaces or control characters, or none, gets a fresh id")
    func supplied() {
        func id(_ header: String?) -> String? {
            RequestID.supplied(by: HTTPRequest(method: "GET", path: "/", headers: header.map { ["x-request-id": $0] } ?? [:]))
        }
        #expect(id("4bf92f3577b34da6a3ce929d0e0e4736") == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(id("req:abc_1.2-3+x/y=@z") == "req:abc_1.2-3+x/y=@z")
        for bad in [nil, "", String(repeating: "a", count: 129), "two words", "line\nbreak", "quote\"", "tab\t", "é"] {
            #expect(id(bad) == nil, "\(bad ?? "no header")")
        }
        let made = RequestID.of(HTTPRequest(method: "GET", path: "/"))
        let next = RequestID.of(HTTPRequest(method: "GET", path: "/"))
        #expect(made != next && made.hasPrefix(RequestID.prefix + "-") && next.hasPrefix(RequestID.prefix + "-"))
        #expect(RequestID.prefix.count == 8)
    }

    @Test("every answer, success or refusal, carries its id, which its access-log line names; a caller's own id comes back")
    func answered() async throws {
        let lines = Mutex<[String]>([])
        let f = try await ServerFixture.start(log: { line in lines.withLock { $0.append(line) } })
        let ok = try await f.client("member").get("/v1/me")
        let refused = try await f.client().get("/v1/me")
        let missing = try await f.client("member").get("/nowhere")
        let ids = [ok, refused, missing].compactMap { $0.header("X-Request-Id") }
        #expect(ids.count == 3 && Set(ids).count == 3, "\(ids)")
        let traced = try await f.client("member").get("/v1/me", headers: ["X-Request-Id": "trace-42"])
        #expect(traced.header("X-Request-Id") == "trace-42")
        let forged = try await f.client("member").get("/v1/me", headers: ["X-Request-Id": #"x","status":200"#])
        #expect(forged.header("X-Request-Id")?.hasPrefix(RequestID.prefix + "-") == true, "\(forged.header("X-Request-Id") ?? "")")
        await f.stop()
        let logged = lines.withLock { $0 }.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        for id in ids + ["trace-42"] {
            #expect(logged.contains { $0["request_id"] as? String == id }, "\(id) in \(logged)")
        }
        #expect(logged.count == 5)
    }

    /// docs/api.md: every answer carries its id (only libmicrohttpd's own pages have none), and
    /// the OpenAPI document declares it on every route's 400 and 422. The answers the server
    /// gave before any handler ran had neither an id nor a log line.
    @Test(
        "answers given before routing carry an id too, and their line names it: a query that is not text, an ambiguous length, no Host, a body over the cap"
    )
    func answeredEarly() async throws {
        let lines = Mutex<[String]>([])
        let f = try await ServerFixture.start(limits: HTTPServerLimits(maxBodyBytes: 64), log: { line in lines.withLock { $0.append(line) } })
        let token = try #require(f.tokens["member"])
        let requests = [
            ("GET /v1/teams/\(f.team)/tasks?assignee=a%00b HTTP/1.1\r\nHost: 127.0.0.1\r\n", 422),
            ("POST /v1/teams/\(f.team)/tasks HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\nContent-Length: 3\r\n", 400),
            ("GET /v1/me HTTP/1.1\r\n", 400),
            ("POST /v1/teams/\(f.team)/tasks HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000\r\n", 413),
        ]
        var ids: [String] = []
        for (head, status) in requests {
            let connection = try await RawConnection.exchange(
                port: f.server.http.port,
                head + "Authorization: Bearer \(token)\r\nX-Request-Id: early-\(status)-\(ids.count)\r\nConnection: close\r\n\r\n")
            #expect(connection.closedByPeer)
            #expect(connection.text.hasPrefix("HTTP/1.1 \(status)"), "\(connection.text.debugDescription)")
            let id = "early-\(status)-\(ids.count)"
            #expect(connection.text.contains("X-Request-Id: \(id)\r\n"), "\(head): \(connection.text.debugDescription)")
            ids.append(id)
        }
        await f.stop()
        let logged = lines.withLock { $0 }.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        for (id, (_, status)) in zip(ids, requests) {
            let line = logged.first { $0["request_id"] as? String == id }
            #expect(line?["status"] as? Int == status && (line?["token"] as? String)?.hasPrefix("tb_") == true, "\(id) in \(logged)")
        }
    }
}

@Suite("What the access log shows of a credential")
struct CredentialLabelTests {
    @Test("a bearer credential that is no Taskbase token nor JWT is logged as other: and a hash, no part of it; a token by its prefix")
    func otherCredentials() async throws {
        let lines = Mutex<[String]>([])
        let f = try await ServerFixture.start(log: { line in lines.withLock { $0.append(line) } })
        // A dotted passphrase looks like a JWT and is labelled jwt:, salted like the rest.
        let credentials = ["MyS3cretPassw0rd!", "hunter2", "tb_short", "correct.horse.battery"]
        for credential in credentials {
            let reply = try await HTTPClient(baseURL: f.server.baseURL, token: credential).get("/v1/me")
            #expect(reply.status == 401)
        }
        let unknown = "tb_" + String(repeating: "Q", count: 43)
        #expect(try await HTTPClient(baseURL: f.server.baseURL, token: unknown).get("/v1/me").status == 401)
        await f.stop()
        let logged = lines.withLock { $0 }
        let labels = logged.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }.compactMap {
            $0["token"] as? String
        }
        #expect(labels.count == 5, "\(logged)")
        // Once the dotted one's label was its plain SHA-256's first 12 hex digits: a guess's hash matched it.
        let unsalted = "jwt:" + SHA256.hexDigest(of: "correct.horse.battery".utf8).prefix(12)
        #expect(labels.contains { $0.hasPrefix("jwt:") && $0.count == 16 } && !labels.contains(unsalted), "\(labels)")
        #expect(labels.filter { $0.hasPrefix("other:") && $0.count == 18 }.count == 3, "\(labels)")
        #expect(labels.contains(TokenSecrets.prefix(of: unknown)), "a Taskbase token's prefix, as before: \(labels)")
        // No four characters of a credential in a row anywhere in the log.
        for credential in credentials {
            let characters = Array(credential)
            for start in 0...(characters.count - 4) {
                let piece = String(characters[start..<start + 4])
                #expect(!logged.contains { $0.contains(piece) }, "\(piece) of \(credential) in \(logged)")
            }
        }
        // One credential, one label (within the run).
        #expect(TokenVerifier.Bearer.label(of: "hunter2") == TokenVerifier.Bearer.label(of: "hunter2"))
    }
}
