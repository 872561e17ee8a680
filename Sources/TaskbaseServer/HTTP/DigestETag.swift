import Hashing
import TaskCore

/// Weak entity tags for the JSON reads that have no version of their own — task lists, history,
/// teams, members, summaries, `/v1/me`, the OpenAPI document: a digest of the body, so a client
/// that polls a list sends `If-None-Match` and gets `304` with no body while nothing changed,
/// as GitHub's API answers conditional requests.
///
/// The tag is weak (`W/"…"`, RFC 9110 §8.8.1): it names the JSON, whether it then goes gzipped
/// or not, and `If-None-Match` compares weakly (§13.1.2). A task's own `ETag`, its version, is
/// strong (`If-Match` compares it strongly) and is left as it is. The server still does the read;
/// what a match saves is the body on the wire.
enum DigestETag {
    /// `W/"` and the first 32 hex digits (128 bits) of the SHA-256 of `body`, then `"`.
    static func of(_ body: [UInt8]) -> String {
        "W/\"" + SHA256.hexDigest(of: body).prefix(32) + "\""
    }

    /// Whether `response` carries a strong `ETag` (a task's version, which `If-Match` compares
    /// byte for byte): such an answer is neither tagged here nor compressed.
    static func hasStrongTag(_ response: HTTPResponse) -> Bool {
        response.header("etag").map { !$0.hasPrefix("W/") } ?? false
    }

    /// `response` with its weak tag, for one made once and sent many times.
    static func tagged(_ response: HTTPResponse) -> HTTPResponse {
        guard response.header("etag") == nil, case .bytes(let body) = response.body else { return response }
        var tagged = response
        tagged.headers.append(("ETag", of(body)))
        return tagged
    }

    /// Gives a `200` JSON answer to `GET` or `HEAD` with no `ETag` its weak tag. A strong
    /// `ETag` (a task's version) is not touched.
    static func tag(_ response: inout HTTPResponse, for request: HTTPRequest) {
        guard response.status == 200, request.method == "GET" || request.method == "HEAD", case .bytes(let body) = response.body,
            response.header("etag") == nil, response.header("content-type")?.hasPrefix("application/json") == true
        else { return }
        response.headers.append(("ETag", of(body)))
    }

    /// Turns a `200` answer to `GET` or `HEAD` into `304` when `request`'s `If-None-Match` names
    /// its `ETag`, weak or strong (the weak comparison, RFC 9110 §13.1.2). Run on the answer as
    /// it would go (compressed or not, `Vary` said): a 304 keeps every header the 200 would have
    /// had (§15.4.5: `ETag` and `Vary` among them) but `Content-Type` and `Content-Encoding`,
    /// which describe a body, and keeps the 200's body, which is never sent (libmicrohttpd
    /// sends no body with a 304) but counted: its `Content-Length` is then the 200's, as §8.6
    /// requires of a 304 that has one (libmicrohttpd always writes one, from the body it is
    /// given: an empty one made it `0`).
    static func notModified(_ response: inout HTTPResponse, for request: HTTPRequest) {
        guard response.status == 200, request.method == "GET" || request.method == "HEAD", case .bytes = response.body,
            let tag = response.header("etag"), let header = request.header("if-none-match"), matches(header, tag)
        else { return }
        response.status = 304
        response.gzippedBody = nil
        response.headers.removeAll { ["content-type", "content-encoding"].contains($0.name.lowercased()) }
    }

    /// Whether `header`, an `If-None-Match` or `If-Match` value, names `tag` (nil: the resource
    /// has none, so only `*` does): `*`, or an entity tag whose quoted part equals `tag`'s. By
    /// the weak comparison `W/` is ignored on either side; by the strong one (`strongly`, RFC
    /// 9110 §8.8.3.2, for `If-Match`) a weak tag on either side never matches.
    static func matches(_ header: String, _ tag: String?, strongly: Bool = false) -> Bool {
        let opaque = tag.flatMap { tag in tag.hasPrefix("W/") ? (strongly ? nil : tag.dropFirst(2)) : Substring(tag) }
        for element in header.split(separator: ",") {
            let candidate = element.trimmingSpaces()
            if candidate == "*" { return true }
            guard let opaque else { continue }
            if candidate.hasPrefix("W/") {
                if !strongly && candidate.dropFirst(2) == opaque { return true }
            } else if candidate == opaque {
                return true
            }
        }
        return false
    }
}
