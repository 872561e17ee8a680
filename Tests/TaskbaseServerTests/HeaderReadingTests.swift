import TaskCore
@testable import TaskbaseServer
import Testing

/// How a request's and an answer's fields are read on every request: in place, without the
/// copies the first versions made, and with the same results.
@Suite("Reading header fields")
struct HeaderReadingTests {
    /// The bearer credential as the first version read it (a split at the first run of spaces,
    /// the scheme lowercased, the rest trimmed): what the in-place reading must agree with.
    static func splitReading(_ header: String) -> String? {
        let parts = header.split(separator: " ", maxSplits: 1)
        let secret = parts.count == 2 ? parts[1].trimmingSpaces() : ""
        guard parts.count == 2, parts[0].lowercased() == "bearer", !secret.isEmpty else { return nil }
        return secret
    }

    static func reading(_ header: String?) -> String? {
        var request = HTTPRequest(method: "GET", path: "/v1/me")
        if let header { request.headers["authorization"] = header }
        if case .secret(let secret) = TokenVerifier.Bearer(of: request) { return secret }
        return nil
    }

    @Test(
        "a bearer credential reads as before: the scheme in any case, spaces around the credential dropped, any other scheme refused",
        arguments: [
            "Bearer tb_abc", "bearer tb_abc", "BEARER tb_abc", "bEaReR tb_abc", "Bearer   tb_abc  ", "  Bearer tb_abc", "Bearer tb_abc\t",
            "Bearer a b", "Bearer", "Bearer ", "Bearer   ", "Bearer\ttb_abc", "Bearerx tb_abc", "Beare tb_abc", "Basic dXNlcjpwYXNz",
            "Bearer\u{00A0}tb_abc", "B\u{00E9}arer tb_abc", "Bearer \u{00A0}tb\u{00A0}", "", " ", "Token tb_abc", "bearer\u{212A} x",
        ])
    func bearer(header: String) {
        #expect(Self.reading(header) == Self.splitReading(header), "\(header.debugDescription)")
    }

    @Test("no Authorization header is a missing credential, not a refused one")
    func missing() {
        guard case .missing = TokenVerifier.Bearer(of: HTTPRequest(method: "GET", path: "/v1/me")) else {
            Issue.record("a request without Authorization read as carrying one")
            return
        }
        guard case .notBearer = TokenVerifier.Bearer(of: HTTPRequest(method: "GET", path: "/", headers: ["authorization": "Basic x"])) else {
            Issue.record("Basic read as a bearer credential")
            return
        }
    }

    @Test("a request's field is found whatever case its name is asked in")
    func requestFieldCase() {
        let request = HTTPRequest(method: "GET", path: "/", headers: ["content-type": "application/json", "if-none-match": "W/\"x\""])
        #expect(request.header("content-type") == "application/json")
        #expect(request.header("Content-Type") == "application/json")
        #expect(request.header("IF-NONE-MATCH") == "W/\"x\"")
        #expect(request.header("accept") == nil)
        #expect(request.header("Accept") == nil)
    }

    @Test("a request's fields are kept by lowercased name, spaces and tabs around a value dropped, repeats joined")
    func requestFields() {
        let fields = [
            ("Authorization", "Bearer tb_x"), ("host", "127.0.0.1:8080"), ("X-B", "\tv w"), ("x-c", "v "), ("X-\u{C9}", "é"), ("x-b", "2"),
            ("Accept", ""), ("X-D", " \t "),
        ]
        #expect(
            HTTPServer.headers(from: fields) == [
                "authorization": "Bearer tb_x", "host": "127.0.0.1:8080", "x-b": "v w, 2", "x-c": "v", "x-\u{E9}": "é", "accept": "", "x-d": "",
            ])
    }

    @Test("an answer's field is found whatever case either side spells it in, and only a name of the same letters matches")
    func responseFieldCase() {
        let response = HTTPResponse(status: 200, headers: [("ETag", "\"3\""), ("Content-Type", "application/json"), ("X-A", "1"), ("x-a", "2")])
        #expect(response.header("etag") == "\"3\"")
        #expect(response.header("ETAG") == "\"3\"")
        #expect(response.header("content-type") == "application/json")
        #expect(response.header("x-a") == "2", "the last of a repeated field")
        #expect(response.header("etags") == nil)
        #expect(response.header("eta") == nil)
        // Letters differ from other bytes by the same bit (0x20) only among A-Z/a-z.
        for (one, other) in [("X-A", "X\rA"), ("A@", "A`"), ("A[", "A{"), ("A^", "A~"), ("1", "\u{11}")] {
            #expect(!HTTPResponse.sameFieldName(one, other), "\(one.debugDescription) \(other.debugDescription)")
        }
        #expect(HTTPResponse.sameFieldName("Content-Length", "content-LENGTH"))
    }
}
