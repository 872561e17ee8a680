import Foundation
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
}
