import Foundation
import TaskbaseWire
import Testing

@testable import TaskbaseServer

/// How the HTTP layer reads a request's framing and header fields, over a raw socket: what an
/// HTTP client library would never send.
@Suite("Request framing and header fields")
struct HTTPFramingTests {
    /// A task's creation, 16 bytes of body, with `framing` as its length headers and the member's
    /// token; `then` follows it on the same connection (pipelined).
    static func creation(_ f: ServerFixture, framing: String, body: String, then next: String = "") -> String {
        "POST /v1/teams/\(f.team)/tasks HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(f.tokens["member"]!)\r\n"
            + "Content-Type: application/json\r\n\(framing)\r\n" + body + next
    }

    @Test(
        "a request whose body's end is told two ways (Content-Length values that differ, or with Transfer-Encoding) is 400 and the connection closed, and nothing pipelined after it is served"
    )
    func ambiguousFraming() async throws {
        let f = try await ServerFixture.start(.memory)
        let body = #"{"title":"Smug"}"#
        #expect(body.utf8.count == 16)
        let me = "GET /v1/me HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(f.tokens["member"]!)\r\n\r\n"
        let chunked = "10\r\n\(body)\r\n0\r\n\r\n"
        for (framing, sent) in [
            ("Content-Length: 16\r\nContent-Length: 0\r\n", body), ("Content-Length: 0\r\nContent-Length: 16\r\n", body),
            ("Content-Length: 3\r\nTransfer-Encoding: chunked\r\n", chunked), ("Transfer-Encoding: chunked\r\nContent-Length: 16\r\n", chunked),
        ] {
            let connection = try RawConnection(port: f.server.http.port)
            connection.send(Self.creation(f, framing: framing, body: sent, then: me))
            #expect(await connection.readUntilClosed(limit: .seconds(10)), "\(framing): \(connection.text.debugDescription)")
            #expect(connection.text.hasPrefix("HTTP/1.1 400"), "\(framing): \(connection.text.debugDescription)")
            #expect(connection.text.contains("application/problem+json") && connection.text.contains("\"Content-Length\""))
            #expect(connection.text.components(separatedBy: "HTTP/1.1 ").count == 2, "one answer: \(connection.text.debugDescription)")
            #expect(!connection.text.contains(f.member.email), "the pipelined request is not served")
        }
        #expect(try await f.client("member").get("/v1/teams/\(f.team)/tasks").decode(TaskPageDocument.self).tasks.isEmpty)
        // The same length twice is one length (RFC 9112 §6.3 lets a recipient take it).
        let repeated = try RawConnection(port: f.server.http.port)
        repeated.send(Self.creation(f, framing: "Content-Length: 16\r\nContent-Length: 16\r\nConnection: close\r\n", body: body))
        _ = await repeated.readUntilClosed(limit: .seconds(10))
        #expect(repeated.text.hasPrefix("HTTP/1.1 201"), "\(repeated.text.debugDescription)")
        // ...and is judged against the size cap before any of the body arrives, as one is.
        let huge = try RawConnection(port: f.server.http.port)
        huge.send(Self.creation(f, framing: "Content-Length: 900000000\r\nContent-Length: 900000000\r\n", body: ""))
        _ = await huge.readUntilClosed(limit: .seconds(10))
        #expect(huge.text.hasPrefix("HTTP/1.1 413"), "\(huge.text.debugDescription)")
        await f.stop()
    }

    /// RFC 9112 §6.3: a request whose Transfer-Encoding does not end in chunked has a body whose
    /// end cannot be told; the server MUST answer 400 and close. libmicrohttpd reads any coding
    /// but a lone chunked as "until the client closes": such a request hung with no answer.
    @Test("a Transfer-Encoding other than chunked alone (identity, gzip, gzip then chunked, chunked twice) is 400 at once and the connection closed")
    func transferCodings() async throws {
        let f = try await ServerFixture.start(.memory)
        let body = #"{"title":"Smug"}"#
        let chunked = "10\r\n\(body)\r\n0\r\n\r\n"
        for codings in ["identity", "gzip", "gzip, chunked", "chunked, chunked", "chunked, gzip"] {
            let connection = try await RawConnection.exchange(
                port: f.server.http.port, Self.creation(f, framing: "Transfer-Encoding: \(codings)\r\n", body: chunked))
            // Answered and closed by the server, well before its 30 s idle timeout.
            #expect(connection.closedByPeer, "\(codings): \(connection.text.debugDescription)")
            #expect(connection.text.hasPrefix("HTTP/1.1 400"), "\(codings): \(connection.text.debugDescription)")
            #expect(connection.text.contains(#""field":"Transfer-Encoding""#), "\(codings): \(connection.text.debugDescription)")
        }
        #expect(try await f.client("member").get("/v1/teams/\(f.team)/tasks").decode(TaskPageDocument.self).tasks.isEmpty)
        // chunked alone, in any case, is read as ever.
        for codings in ["chunked", "Chunked"] {
            let connection = try await RawConnection.exchange(
                port: f.server.http.port, Self.creation(f, framing: "Transfer-Encoding: \(codings)\r\nConnection: close\r\n", body: chunked))
            #expect(connection.text.hasPrefix("HTTP/1.1 201"), "\(codings): \(connection.text.debugDescription)")
        }
        await f.stop()
    }

    /// RFC 9112 §3.2: a server MUST answer 400 to an HTTP/1.1 request that lacks a Host header,
    /// carries more than one, or holds an invalid value. All three were served (200).
    @Test("an HTTP/1.1 request without a Host, with two, or with one that names no host is 400 naming Host; HTTP/1.0 may leave it out")
    func hostIsRequired() async throws {
        let f = try await ServerFixture.start(.memory)
        let me = "Authorization: Bearer \(f.tokens["member"]!)\r\nConnection: close\r\n"
        for (version, hosts, status) in [
            ("HTTP/1.1", [String](), 400), ("HTTP/1.1", ["127.0.0.1", "example.com"], 400), ("HTTP/1.1", ["a b"], 400),
            ("HTTP/1.1", ["exa\"mple"], 400), ("HTTP/1.1", ["127.0.0.1:8080"], 200), ("HTTP/1.1", ["[::1]:80"], 200),
            ("HTTP/1.1", ["Api.Example.com"], 200), ("HTTP/1.1", [""], 200), ("HTTP/1.0", [], 200), ("HTTP/1.0", ["127.0.0.1"], 200),
        ] {
            let connection = try await RawConnection.exchange(
                port: f.server.http.port, "GET /v1/me \(version)\r\n" + hosts.map { "Host: \($0)\r\n" }.joined() + me + "\r\n")
            #expect(connection.closedByPeer, "\(version) \(hosts)")
            #expect(connection.text.hasPrefix("HTTP/1.1 \(status)"), "\(version) \(hosts): \(connection.text.debugDescription)")
            if status == 400 {
                let body = try #require(connection.text.components(separatedBy: "\r\n\r\n").last)
                let problem = try JSONDecoder().decode(ProblemDocument.self, from: Data(body.utf8))
                #expect(problem.field == "Host" && problem.detail.contains("Host"), "\(problem.detail)")
                #expect(!connection.text.contains(f.member.email), "nothing is served")
            }
        }
        await f.stop()
    }

    @Test("spaces and tabs around a header value are not part of it: an Idempotency-Key sent with trailing spaces replays the same answer")
    func fieldValuesAreTrimmed() async throws {
        let f = try await ServerFixture.start(.memory)
        let body = #"{"title":"Once"}"#
        var answers: [String] = []
        for key in ["ws-key-1", "ws-key-1   ", "ws-key-1 \t ", "\t ws-key-1"] {
            let connection = try RawConnection(port: f.server.http.port)
            connection.send(
                Self.creation(f, framing: "Content-Length: \(body.utf8.count)\r\nIdempotency-Key: \(key)\r\nConnection: close\r\n", body: body))
            _ = await connection.readUntilClosed(limit: .seconds(10))
            #expect(connection.text.hasPrefix("HTTP/1.1 201"), "\(key.debugDescription): \(connection.text.debugDescription)")
            answers.append(connection.text.components(separatedBy: "\r\n\r\n").dropFirst().joined())
        }
        #expect(Set(answers).count == 1, "one answer, replayed: \(answers)")
        #expect(try await f.client("member").get("/v1/teams/\(f.team)/tasks").decode(TaskPageDocument.self).tasks.count == 1)
        #expect(HTTPServer.headers(from: [("X-A", " a b\t"), ("x-a", "\tc ")]) == ["x-a": "a b, c"])
        await f.stop()
    }
}
