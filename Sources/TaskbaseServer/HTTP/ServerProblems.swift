import Foundation
import TaskCore
import TaskbaseWire

/// Problems as responses: `application/problem+json` with the problem's status.
public enum ServerProblems {
    /// The media type of every problem (RFC 9457).
    public static let contentType = "application/problem+json"

    /// `problem` as a response, with extra `headers`.
    public static func response(_ problem: ProblemDocument, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        (try? .json(problem, status: problem.status, contentType: contentType, headers: headers))
            ?? HTTPResponse(
                status: problem.status, headers: [("Content-Type", contentType)] + headers,
                body: .bytes(Array(#"{"status":500}"#.utf8) + [UInt8(ascii: "\n")]))
    }

    /// A problem a handler threw, as its response; a 503 says to try again in a second.
    public static func response(thrown problem: ProblemDocument) -> HTTPResponse {
        response(problem, headers: problem.status == 503 ? [("Retry-After", "1")] : [])
    }

    /// A problem a handler throws with header fields of its own (a PATCH route's 415 names the
    /// patch types it takes in `Accept-Patch`; `retryLater` says when to try again).
    public struct Refusal: Error, Sendable {
        /// What is refused.
        public var problem: ProblemDocument
        /// The fields its response carries besides the problem's own.
        public var headers: [(name: String, value: String)]

        /// The response it stands for.
        public var response: HTTPResponse { ServerProblems.response(problem, headers: headers) }

        /// A refusal that names when to try again (`Retry-After`), for a handler to throw when a
        /// second is too soon.
        public static func retryLater(_ problem: ProblemDocument, seconds: Int) -> Refusal {
            Refusal(problem: problem, headers: [("Retry-After", String(seconds))])
        }
    }

    /// A service refusal as a response; a conflict carries the current version as the ETag.
    public static func response(_ error: TaskError, status: Int? = nil) -> HTTPResponse {
        var headers: [(name: String, value: String)] = []
        if case .conflict(_, let version) = error { headers.append(("ETag", ETag.of(version))) }
        return response(ProblemDocument(error, status: status), headers: headers)
    }

    /// 413 for a body over `limit` bytes.
    public static func tooLarge(limit: Int) -> HTTPResponse {
        response(
            ProblemDocument(
                .payloadTooLarge,
                detail:
                    "the request body is larger than \(limit) bytes; send less (or raise the server's TASKBASE_HTTP_MAX_BODY, TASKBASE_HTTP_MAX_IMPORT_BODY for imports)"
            ))
    }

    /// 501 for a request whose `method` no route of the server takes, on any path: RFC 9110
    /// §15.6.2 (a method the server does not recognize or implement); a method it takes
    /// elsewhere is 405 with `Allow`. `implemented` names those it takes.
    public static func notImplemented(method: String, implemented: [String]) -> HTTPResponse {
        response(
            ProblemDocument(
                .notImplemented,
                detail: "the server implements no method \(method) on any path; it takes \(implemented.joined(separator: ", "))"))
    }

    /// 503: a body that goes to a temporary file found no room there.
    public static func cannotSpool() -> HTTPResponse {
        cannotSpoolRefusal.response
    }

    /// Why `cannotSpool` refuses, with 5 s to wait (a full disk empties slowly); what a handler
    /// that spools throws.
    static let cannotSpoolRefusal = Refusal.retryLater(cannotSpoolProblem, seconds: 5)

    /// The problem `cannotSpoolRefusal` reports.
    static let cannotSpoolProblem = ProblemDocument(
        .unavailable,
        detail:
            "the server could not store the request body: its temporary directory (TMPDIR) is missing, full or not writable; try again later, or tell the operator"
    )

    /// 503: a request that arrived (on a connection kept open) once shutdown had begun, refused
    /// before its handler runs, so nothing was done; the connection is closed.
    public static func notTaking() -> HTTPResponse {
        response(
            ProblemDocument(.unavailable, detail: "the server is stopping and takes no new requests; nothing was done: retry"),
            headers: [("Retry-After", "1"), ("Connection", "close")])
    }

    /// 503: as many spooled uploads are arriving as the server takes at once
    /// (`HTTPServerLimits.maxSpooledBodies`); refused before a byte of the body is stored.
    public static func uploadsBusy(limit: Int) -> HTTPResponse {
        response(
            ProblemDocument(
                .unavailable, detail: "the server is receiving \(limit) uploads already (--max-uploads); nothing was done: retry shortly"),
            headers: [("Retry-After", "1"), ("Connection", "close")])
    }

    /// 503: the upload's user is sending as many spooled uploads at once as one user may
    /// (`HTTPServerLimits.maxSpooledBodiesPerUser`); refused before a byte of the body is stored.
    public static func uploadsBusy(perUser limit: Int) -> HTTPResponse {
        response(
            ProblemDocument(
                .unavailable,
                detail: "this user is sending \(limit) uploads already (--max-uploads-per-user); nothing was done: retry once one has finished"),
            headers: [("Retry-After", "1"), ("Connection", "close")])
    }

    /// 503: the server stopped before the request's answer was ready.
    public static func stopping() -> HTTPResponse {
        response(
            ProblemDocument(
                .unavailable,
                detail:
                    "the server is stopping and this request did not finish within its shutdown grace; it may or may not have taken effect: read the resource again before retrying"
            ), headers: [("Retry-After", "1"), ("Connection", "close")])
    }

    /// 400 and the connection closed for a request whose body's end is told two ways (RFC 9112
    /// §6.3): `Content-Length` with `Transfer-Encoding`, or `Content-Length`s that differ (the
    /// daemon would take the first, or the chunks, where a proxy in front may have taken the
    /// other, and read the rest as a request of its own: request smuggling). Repeated identical
    /// values (`16`, `16`) are one length, as RFC 9112 lets a recipient take them; nil then, and
    /// for a request that tells its length one way or not at all.
    ///
    /// So is one whose `Transfer-Encoding` is anything but `chunked` alone (RFC 9112 §6.3: when
    /// chunked is not the final coding the length cannot be determined, and the server MUST
    /// answer 400 and close; libmicrohttpd 0.9.75 decodes only a lone `chunked` and otherwise
    /// reads the body until the client closes, so `Transfer-Encoding: gzip, chunked` or
    /// `identity` left the request hanging with no answer).
    static func ambiguousFraming(_ request: HTTPRequest) -> HTTPResponse? {
        let field: String, reason: String
        if let codings = request.header("transfer-encoding") {
            let named = codings.split(separator: ",").map { $0.trimmingSpaces().lowercased() }
            if named != ["chunked"] {
                field = "Transfer-Encoding"
                reason =
                    named.last == "chunked"
                    ? "the server decodes no transfer coding but chunked, sent alone (Transfer-Encoding: \(codings))"
                    : "a request's Transfer-Encoding must end in chunked, or where its body ends cannot be told (Transfer-Encoding: \(codings))"
            } else if contentLengths(request) != nil {
                (field, reason) = ("Content-Length", "a request may carry Content-Length or Transfer-Encoding, not both")
            } else {
                return nil
            }
        } else if let lengths = contentLengths(request), Set(lengths).count > 1 {
            (field, reason) = ("Content-Length", "the request carries Content-Length values that differ (\(lengths.joined(separator: ", ")))")
        } else {
            return nil
        }
        let problem = ProblemDocument(
            .validation, detail: "where the body ends is ambiguous: \(reason); nothing was done", status: 400, field: field, reason: reason)
        return response(problem, headers: [("Connection", "close")])
    }

    /// 400 for an HTTP/1.1 request without exactly one `Host` field holding a host (RFC 9112
    /// §3.2: a server MUST answer 400 to one that lacks it, carries it twice, or holds an invalid
    /// value; libmicrohttpd 0.9.75 checks none of it unless made strict, which refuses more).
    /// `fields` are the request's header fields as sent (a repeated one not yet joined); nil for
    /// a request that is fine (HTTP/1.0 may leave it out). Run on every request, so it makes no
    /// array and looks each character up in a `switch`, not a `CharacterSet`.
    static func hostRefusal(version: String, fields: [(name: String, value: String)]) -> HTTPResponse? {
        var count = 0
        var host = ""
        for field in fields where HTTPResponse.sameFieldName(field.name, "host") {
            count += 1
            host = field.value
        }
        let reason: String
        switch count {
        case 0:
            guard version == "HTTP/1.1" else { return nil }
            reason = "an HTTP/1.1 request must carry a Host header naming the server"
        case 1:
            guard let bad = host.trimmingSpaces().unicodeScalars.first(where: { !isHostCharacter($0) }) else { return nil }
            reason = "the Host header holds \"\(bad.escaped(asASCII: true))\", which no host name or address does"
        default:
            reason = "the request carries \(count) Host headers; send one"
        }
        let problem = ProblemDocument(.validation, detail: "\(reason); nothing was done", status: 400, field: "Host", reason: reason)
        return response(problem, headers: [("Connection", "close")])
    }

    /// What a `Host` value (`uri-host [":" port]`, RFC 3986) may hold: unreserved characters,
    /// `%` escapes, sub-delimiters, and the `:` and brackets of a port and an IPv6 literal.
    private static func isHostCharacter(_ character: Unicode.Scalar) -> Bool {
        switch character {
        case "a"..."z", "A"..."Z", "0"..."9", "-", ".", "_", "~", "%", "!", "$", "&", "'", "(", ")", "*", "+", ",", ";", "=", ":",
            "[", "]":
            return true
        default: return false
        }
    }

    /// The body's length a request declares: its `Content-Length`, the one value of a repeated
    /// identical one (`16, 16`) too; nil without one, or for one that is not a number.
    static func declaredLength(_ request: HTTPRequest) -> Int? {
        guard let values = contentLengths(request), let first = values.first, values.allSatisfy({ $0 == first }) else { return nil }
        return Int(first)
    }

    /// Each `Content-Length` value a request carries (repeated fields arrive joined by commas),
    /// an empty one included; nil without the field.
    private static func contentLengths(_ request: HTTPRequest) -> [String]? {
        request.header("content-length")?.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingSpaces() }
    }

    /// 401 with the `WWW-Authenticate` challenge. When a bearer token was sent and refused,
    /// `invalidToken` says why in the challenge too (RFC 6750 §3.1: `error="invalid_token"` and
    /// `error_description`): a constant, so ASCII without quotes and never a part of the token.
    /// Without a bearer token (none sent, or another scheme) the challenge is bare, as §3.1 asks.
    public static func unauthorized(_ detail: String, invalidToken reason: StaticString? = nil) -> HTTPResponse {
        let challenge = #"Bearer realm="taskbase""# + (reason.map { #", error="invalid_token", error_description="\#($0)""# } ?? "")
        return response(ProblemDocument(.unauthorized, detail: detail), headers: [("WWW-Authenticate", challenge)])
    }
}

/// Entity tags: a task's version, quoted.
public enum ETag {
    /// `"3"`.
    public static func of(_ version: Int64) -> String { "\"\(version)\"" }

    /// What an `If-Match` value asks for: any version (`*`), or one of `versions`.
    public enum Condition: Equatable, Sendable {
        case any
        /// The versions the listed tags name; empty when none names one (no task matches).
        case versions(Set<Int64>)
    }

    /// What an `If-Match` value asks for: `*`, or a list of entity tags (RFC 9110 §13.1.1), any
    /// one of which matches when it is the task's `ETag`, compared strongly, byte for byte:
    /// only a strong tag written as this API writes a version (`"3"`: digits, no sign, no
    /// leading zero) names one. Any other entity tag (`W/"3"`, `"+3"`, `"003"`, `"0"`,
    /// `"abc"`) names none, so alone it is refused as stale (412 with the current `ETag`). A
    /// value that is not a list of entity tags is a validation error on the header.
    public static func condition(in header: String, field: String) throws -> Condition {
        let text = header.trimmingSpaces()
        if text == "*" { return .any }
        let invalid = TaskError.validation(
            field: field, reason: "\(text) is not a list of entity tags (a task's version in quotes, like \"3\", or *)")
        var rest = Substring(text)
        var versions: Set<Int64> = []
        var tags = 0
        func skipSpace() { rest = rest.drop { $0 == " " || $0 == "\t" } }
        while true {
            skipSpace()
            if rest.first == "," {
                rest = rest.dropFirst()
                continue
            }
            guard !rest.isEmpty else { break }
            let weak = rest.hasPrefix("W/")
            if weak { rest = rest.dropFirst(2) }
            guard rest.first == "\"", let close = rest.dropFirst().firstIndex(of: "\"") else { throw invalid }
            let opaque = rest[rest.index(after: rest.startIndex)..<close]
            // etagc: %x21 / %x23-7E / obs-text.
            guard opaque.unicodeScalars.allSatisfy({ $0.value == 0x21 || (0x23...0x7E).contains($0.value) || $0.value >= 0x80 }) else {
                throw invalid
            }
            rest = rest[rest.index(after: close)...]
            tags += 1
            if !weak, let version = version(named: opaque) { versions.insert(version) }
            skipSpace()
            guard rest.isEmpty || rest.first == "," else { throw invalid }
        }
        guard tags > 0 else { throw invalid }
        return .versions(versions)
    }

    /// The version `opaque` (a tag's quoted part) is as `of` writes it, or nil.
    private static func version(named opaque: Substring) -> Int64? {
        guard let first = opaque.first, ("1"..."9").contains(first), opaque.allSatisfy({ ("0"..."9").contains($0) }) else { return nil }
        return Int64(opaque)
    }
}
