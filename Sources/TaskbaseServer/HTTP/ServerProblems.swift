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

    /// A refusal that names when to try again, for a handler to throw when a second is too soon.
    public struct RetryLater: Error, Sendable {
        /// What is refused.
        public var problem: ProblemDocument
        /// `Retry-After`.
        public var seconds: Int

        /// The response it stands for.
        public var response: HTTPResponse { ServerProblems.response(problem, headers: [("Retry-After", String(seconds))]) }
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

    /// 503: a body that goes to a temporary file found no room there.
    public static func cannotSpool() -> HTTPResponse {
        cannotSpoolRefusal.response
    }

    /// Why `cannotSpool` refuses, with 5 s to wait (a full disk empties slowly); what a handler
    /// that spools throws.
    static let cannotSpoolRefusal = RetryLater(problem: cannotSpoolProblem, seconds: 5)

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

    /// 503: the server stopped before the request's answer was ready.
    public static func stopping() -> HTTPResponse {
        response(
            ProblemDocument(
                .unavailable,
                detail:
                    "the server is stopping and this request did not finish within its shutdown grace; it may or may not have taken effect: read the resource again before retrying"
            ), headers: [("Retry-After", "1"), ("Connection", "close")])
    }

    /// 401 with the `WWW-Authenticate` challenge.
    /// 400 and the connection closed for a request whose body's end is told two ways (RFC 9112
    /// §6.3): `Content-Length` with `Transfer-Encoding`, or `Content-Length`s that differ (the
    /// daemon would take the first, or the chunks, where a proxy in front may have taken the
    /// other, and read the rest as a request of its own: request smuggling). Repeated identical
    /// values (`16`, `16`) are one length, as RFC 9112 lets a recipient take them; nil then, and
    /// for a request that tells its length one way or not at all.
    static func ambiguousFraming(_ request: HTTPRequest) -> HTTPResponse? {
        guard let length = request.header("content-length") else { return nil }
        let reason: String
        if request.header("transfer-encoding") != nil {
            reason = "a request may carry Content-Length or Transfer-Encoding, not both"
        } else if Set(length.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingSpaces() }).count > 1 {
            reason = "the request carries Content-Length values that differ (\(length))"
        } else {
            return nil
        }
        let problem = ProblemDocument(
            .validation, detail: "where the body ends is ambiguous: \(reason); nothing was done", status: 400, field: "Content-Length",
            reason: reason)
        return response(problem, headers: [("Connection", "close")])
    }

    public static func unauthorized(_ detail: String) -> HTTPResponse {
        response(ProblemDocument(.unauthorized, detail: detail), headers: [("WWW-Authenticate", #"Bearer realm="taskbase""#)])
    }
}

/// Entity tags: a task's version, quoted.
public enum ETag {
    /// `"3"`.
    public static func of(_ version: Int64) -> String { "\"\(version)\"" }

    /// The version an `If-Match` value names: nil for `*` (any), otherwise a quoted number. A
    /// weak tag (`W/"3"`) never matches, since `If-Match` compares strongly (RFC 9110
    /// §13.1.1): it names version 0, which no task has, so the write is refused as stale (412
    /// with the current `ETag`); so is a number no task has (`"0"`, `"-1"`), as the service
    /// refuses such an expected version in process. Anything else is a validation error on
    /// the header.
    public static func version(in header: String, field: String) throws -> Int64? {
        let text = header.trimmingSpaces()
        if text == "*" { return nil }
        var tag = Substring(text)
        let weak = tag.hasPrefix("W/")
        if weak { tag = tag.dropFirst(2) }
        guard tag.count >= 3, tag.first == "\"", tag.last == "\"", let version = Int64(tag.dropFirst().dropLast()) else {
            throw TaskError.validation(
                field: field, reason: "\(text) is not an entity tag this API made (a task's version in quotes, like \"3\", or *)")
        }
        return weak ? 0 : version
    }
}
