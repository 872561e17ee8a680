import TaskCore

/// Which web pages may call the API from a browser (`--cors-origin`): the origins answered
/// with `Access-Control-Allow-Origin`, or any. Requests carry a bearer token, never a cookie,
/// so no credentials are ever allowed (`Access-Control-Allow-Credentials` is not sent): a page
/// can act only with a token its user gave it. Without a policy no CORS header is sent, and a
/// browser keeps other sites' pages from reading any answer.
public struct CORSPolicy: Sendable, Equatable {
    /// `*`: every origin.
    let anyOrigin: Bool
    /// The origins allowed, as browsers write them (`https://app.example.com`), lowercased.
    let origins: Set<String>

    /// The request headers a page may send: the token, the body's type and the API's own.
    static let allowedHeaders = "Authorization, Content-Type, If-Match, If-None-Match, Idempotency-Key, Last-Event-ID, X-Request-Id"
    /// The response headers a page may read beyond the basic ones.
    static let exposedHeaders = "ETag, Location, Link, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-Request-Id"
    /// How long a browser may reuse a preflight's answer, in seconds.
    static let preflightMaxAge = "600"

    /// Reads `*` or a comma-separated list of origins (`scheme://host[:port]`, http or https,
    /// no path); nil for an empty list (no CORS). Throws naming the entry it cannot read.
    public init?(parsing list: String) throws {
        let entries = list.split(separator: ",").map { $0.trimmingSpaces().lowercased() }.filter { !$0.isEmpty }
        guard !entries.isEmpty else { return nil }
        if entries.contains("*") {
            guard entries.count == 1 else { throw CORSPolicyError(entry: list, reason: "* allows every origin; list no others beside it") }
            (anyOrigin, origins) = (true, [])
            return
        }
        for entry in entries {
            let rest = entry.hasPrefix("https://") ? entry.dropFirst(8) : entry.hasPrefix("http://") ? entry.dropFirst(7) : nil
            guard let rest, !rest.isEmpty, !rest.contains(where: { "/?#@ \t".contains($0) }) else {
                throw CORSPolicyError(
                    entry: entry, reason: "an origin is scheme://host[:port], http or https, with no path, like https://app.example.com")
            }
        }
        (anyOrigin, origins) = (false, Set(entries))
    }

    /// Whether a page from `origin` may read the answers.
    public func allows(_ origin: String) -> Bool {
        anyOrigin || origins.contains(origin.lowercased())
    }

    /// What an answer to a request from `origin` carries: the grant when the origin is allowed,
    /// and always `Vary: Origin`, since the answer depends on it.
    func headers(answering origin: String) -> [(name: String, value: String)] {
        guard allows(origin) else { return [("Vary", "Origin")] }
        return grant(origin) + [("Access-Control-Expose-Headers", Self.exposedHeaders)]
    }

    /// The answer to a preflight from an allowed `origin` for a path answering `methods`
    /// (204); nil when the origin is not allowed, which is then answered as any other request.
    func preflight(origin: String, methods: [String]) -> HTTPResponse? {
        guard allows(origin) else { return nil }
        return .empty(
            204,
            headers: grant(origin) + [
                ("Access-Control-Allow-Methods", methods.joined(separator: ", ")),
                ("Access-Control-Allow-Headers", Self.allowedHeaders), ("Access-Control-Max-Age", Self.preflightMaxAge),
            ])
    }

    /// The grant to an allowed `origin`, on a preflight and on every answer alike.
    private func grant(_ origin: String) -> [(name: String, value: String)] {
        [("Access-Control-Allow-Origin", anyOrigin ? "*" : origin), ("Vary", "Origin")]
    }
}

/// A `--cors-origin` entry that cannot be read.
public struct CORSPolicyError: Error, CustomStringConvertible {
    public let entry: String
    public let reason: String

    public var description: String { "--cors-origin: \"\(entry)\": \(reason)" }
}
