import Foundation
import TaskbaseServer
import Testing

@Suite("CORS: browser pages calling the API")
struct CORSTests {
    static let page = "https://app.example.com"

    @Test("--cors-origin reads * or a list of http(s) origins; anything else is named in the error")
    func parsing() throws {
        #expect(try CORSPolicy(parsing: "") == nil)
        #expect(try CORSPolicy(parsing: " , ") == nil)
        let any = try #require(try CORSPolicy(parsing: "*"))
        #expect(any.allows("https://anything.example"))
        let listed = try #require(try CORSPolicy(parsing: "https://App.Example.com, http://localhost:3000"))
        #expect(listed.allows(Self.page) && listed.allows("http://localhost:3000"))
        #expect(!listed.allows("http://app.example.com") && !listed.allows("https://app.example.com.evil.example") && !listed.allows("null"))
        for (list, reason) in [
            ("app.example.com", "scheme://host[:port]"), ("https://app.example.com/", "no path"), ("ftp://files.example", "http or https"),
            ("*, https://app.example.com", "list no others"), ("https://", "scheme://host"), ("https://user@app.example.com", "scheme://host"),
        ] {
            do {
                _ = try CORSPolicy(parsing: list)
                Issue.record("\(list) was accepted")
            } catch {
                #expect(error is CORSPolicyError && String(describing: error).contains(reason), "\(list): \(error)")
            }
        }
    }

    @Test("an allowed page's preflight gets 204 with the path's methods and the API's headers; its answers carry the grant")
    func allowedPage() async throws {
        let f = try await ServerFixture.start(cors: try CORSPolicy(parsing: Self.page))
        let preflight = try await f.client().send(
            "OPTIONS", "/v1/tasks/\(f.team.rawValue)-1", headers: ["Origin": Self.page, "Access-Control-Request-Method": "PATCH"])
        #expect(preflight.status == 204)
        #expect(preflight.header("Access-Control-Allow-Origin") == Self.page)
        #expect(preflight.header("Access-Control-Allow-Methods").map { Set($0.components(separatedBy: ", ")) } == ["GET", "HEAD", "PATCH", "DELETE"])
        let allowedHeaders = Set(preflight.header("Access-Control-Allow-Headers")?.components(separatedBy: ", ") ?? [])
        #expect(allowedHeaders.isSuperset(of: ["Authorization", "Content-Type", "If-Match", "Idempotency-Key"]))
        #expect(preflight.header("Access-Control-Max-Age") == "600")
        #expect(preflight.header("Access-Control-Allow-Credentials") == nil, "a bearer token, never cookies")
        // The answers themselves: success and refusal alike, so a page can read the problem.
        let me = try await f.client("owner").get("/v1/me", headers: ["Origin": Self.page])
        #expect(me.status == 200)
        #expect(me.header("Access-Control-Allow-Origin") == Self.page)
        #expect(me.header("Vary") == "Origin")
        #expect(me.header("Access-Control-Expose-Headers")?.contains("ETag") == true)
        let refused = try await f.client().get("/v1/me", headers: ["Origin": Self.page])
        #expect(refused.status == 401 && refused.header("Access-Control-Allow-Origin") == Self.page)
        // Without an Origin header (not a browser page), nothing changes.
        #expect(try await f.client("owner").get("/v1/me").header("Access-Control-Allow-Origin") == nil)
        await f.stop()
    }

    /// docs/api.md: every answer to an allowed page, refusals included, carries the grant. The
    /// ones the server gave before routing (a body over the cap, an ambiguous length, a query
    /// that is not text) had none, so the page saw a CORS failure instead of the problem.
    @Test("the refusals given before routing carry the grant too: a body over the cap, an ambiguous length, a query that is not text")
    func earlyRefusalsGranted() async throws {
        let f = try await ServerFixture.start(limits: HTTPServerLimits(maxBodyBytes: 64), cors: try CORSPolicy(parsing: Self.page))
        let token = try #require(f.tokens["member"])
        for (head, status) in [
            ("POST /v1/teams/\(f.team)/tasks HTTP/1.1\r\nContent-Length: 100000\r\n", 413),
            ("POST /v1/teams/\(f.team)/tasks HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 3\r\n", 400),
            ("GET /v1/teams/\(f.team)/tasks?assignee=a%00b HTTP/1.1\r\n", 422),
        ] {
            for origin in [Self.page, "https://evil.example"] {
                let connection = try await RawConnection.exchange(
                    port: f.server.http.port,
                    head + "Host: 127.0.0.1\r\nOrigin: \(origin)\r\nAuthorization: Bearer \(token)\r\nConnection: close\r\n\r\n")
                #expect(connection.closedByPeer)
                #expect(connection.text.hasPrefix("HTTP/1.1 \(status)"), "\(connection.text.debugDescription)")
                let granted = connection.text.contains("Access-Control-Allow-Origin: \(Self.page)\r\n")
                #expect(granted == (origin == Self.page), "\(origin) \(status): \(connection.text.debugDescription)")
                #expect(connection.text.contains("Vary: Origin\r\n"), "\(origin) \(status)")
            }
        }
        await f.stop()
    }

    @Test("another site's page gets no grant, preflight or answer; without --cors-origin no page does")
    func otherPages() async throws {
        let f = try await ServerFixture.start(cors: try CORSPolicy(parsing: Self.page))
        let evil = ["Origin": "https://evil.example", "Access-Control-Request-Method": "DELETE"]
        let preflight = try await f.client().send("OPTIONS", "/v1/tasks/\(f.team.rawValue)-1", headers: evil)
        // Answered as any OPTIONS, with no grant: the browser refuses the call.
        #expect(preflight.status == 204 && preflight.header("Access-Control-Allow-Origin") == nil)
        #expect(preflight.header("Access-Control-Allow-Methods") == nil && preflight.header("Allow") != nil)
        let answer = try await f.client("owner").get("/v1/me", headers: ["Origin": "https://evil.example"])
        #expect(answer.status == 200 && answer.header("Access-Control-Allow-Origin") == nil)
        #expect(answer.header("Vary") == "Origin")
        await f.stop()

        let closed = try await ServerFixture.start()
        let noPolicy = try await closed.client().send(
            "OPTIONS", "/v1/tasks/\(closed.team.rawValue)-1", headers: ["Origin": Self.page, "Access-Control-Request-Method": "PATCH"])
        #expect(noPolicy.status == 204 && noPolicy.header("Access-Control-Allow-Origin") == nil)
        #expect(noPolicy.header("Access-Control-Allow-Methods") == nil)
        #expect(try await closed.client("owner").get("/v1/me", headers: ["Origin": Self.page]).header("Access-Control-Allow-Origin") == nil)
        await closed.stop()
    }
}
