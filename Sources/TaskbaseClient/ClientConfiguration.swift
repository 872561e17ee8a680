import Foundation

/// How a `TaskbaseClient` talks to the server: where, as whom, and how patiently.
public struct ClientConfiguration: Sendable {
    /// The server's root, e.g. `http://127.0.0.1:8080/`; routes are resolved under it.
    public var baseURL: URL
    /// The API token (`Authorization: Bearer`); never logged, and printed only masked
    /// (`maskedToken`). Unused when `tokenProvider` is set.
    public var token: String
    /// Where each request's token comes from, for tokens that change: an identity provider's
    /// JWTs expire within the hour. Asked with `false` before each request (and each reconnect
    /// of an event feed); when the server refuses the token (401, answered before anything is
    /// done), asked once more with `true`, for a fresh token, and the request is sent again with
    /// it, whatever its method. It should hand out the token it holds until that one expires or
    /// it is asked to refresh. What it throws, the call throws. Takes the place of `token`.
    public var tokenProvider: (@Sendable (_ refresh: Bool) async throws -> String)?
    /// How long a request may go with nothing arriving before it fails with
    /// `TaskbaseClientError.transport` (URLSession's request timeout: it starts again with every
    /// byte, so a long import or export is not cut off). It does not bound a call as a whole:
    /// cancel the calling task for that.
    public var requestTimeout: Duration
    /// How many times a safe request is retried after a connection failure, a 503 or a 429,
    /// and any request after a connection that could not be made (it never left the client).
    public var retries: Int
    /// The first pause before a retry or a reconnect; it doubles each time up to `maximumBackoff`.
    public var backoff: Duration
    /// The longest pause between retries or reconnects of the client's own choosing. A server's
    /// `Retry-After` (a 503's or a 429's) is honoured in full, up to `requestTimeout`: a request
    /// asked to wait longer fails at once with that answer, and a change feed reconnecting
    /// waits as long as it is asked.
    public var maximumBackoff: Duration
    /// An event stream silent this long (no event, no heartbeat) is taken for dead and reopened.
    public var streamIdleTimeout: Duration

    /// A configuration for `baseURL` and `token` with the given patience.
    public init(
        baseURL: URL, token: String, requestTimeout: Duration = .seconds(30), retries: Int = 3, backoff: Duration = .milliseconds(100),
        maximumBackoff: Duration = .seconds(5), streamIdleTimeout: Duration = .seconds(45)
    ) {
        self.baseURL = baseURL
        self.token = token
        self.requestTimeout = requestTimeout
        self.retries = retries
        self.backoff = backoff
        self.maximumBackoff = maximumBackoff
        self.streamIdleTimeout = streamIdleTimeout
    }

    /// A configuration for `baseURL` whose tokens `tokenProvider` supplies, with the default
    /// patience (each a property to change).
    public init(baseURL: URL, tokenProvider: @escaping @Sendable (_ refresh: Bool) async throws -> String) {
        self.init(baseURL: baseURL, token: "")
        self.tokenProvider = tokenProvider
    }

    /// The configuration `TASKBASE_URL` and `TASKBASE_TOKEN` describe in `environment`.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ClientConfiguration {
        guard let text = environment["TASKBASE_URL"], let url = URL(string: text), url.scheme == "http" || url.scheme == "https" else {
            throw TaskbaseClientError.configuration("set TASKBASE_URL to the server's address, e.g. http://127.0.0.1:8080")
        }
        if let refusal = Self.unreachableLiteral(url) { throw refusal }
        guard let token = environment["TASKBASE_TOKEN"], !token.isEmpty else {
            throw TaskbaseClientError.configuration("set TASKBASE_TOKEN to an API token (taskctl token create EMAIL)")
        }
        return ClientConfiguration(baseURL: url, token: token)
    }

    /// Why `url` cannot be reached from this platform's URLSession, if it cannot: on Linux,
    /// FoundationNetworking refuses a URL whose host is an IPv6 literal (`http://[::1]:8080`)
    /// as a bad URL, which says nothing of the cause.
    static func unreachableLiteral(_ url: URL) -> TaskbaseClientError? {
        #if canImport(FoundationNetworking)
        guard let host = url.host, host.contains(":") else { return nil }
        return .configuration(
            "\(url.absoluteString) names the server by an IPv6 literal, which URLSession on Linux cannot reach; "
                + "use a host name for it instead (localhost for ::1, or one in /etc/hosts)")
        #else
        return nil
        #endif
    }

    /// The pause before attempt `attempt` (1 for the first retry).
    func pause(before attempt: Int) -> Duration {
        min(maximumBackoff, backoff * (1 << min(max(attempt - 1, 0), 20)))
    }

    /// The pause before attempt `attempt` when the server asked for `serverSaid` (its
    /// `Retry-After`; zero when it named none): the longer of the two, or nil when the server
    /// asks for longer than `requestTimeout`, which a request does not wait.
    func pause(before attempt: Int, serverSaid: Duration) -> Duration? {
        serverSaid > requestTimeout ? nil : max(serverSaid, pause(before: attempt))
    }
}

/// Printed, debug-printed or dumped, a configuration shows its token masked (`maskedToken`),
/// never whole: a log line or a crash report must not carry the secret.
extension ClientConfiguration: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The token as it may be shown: its first characters (a quarter of it at most, six at
    /// most: `tb_k3V…`), enough to tell tokens apart, never the secret part.
    public var maskedToken: String {
        if tokenProvider != nil { return "(from the token provider)" }
        return token.isEmpty ? "(none)" : token.prefix(min(6, token.count / 4)) + "…"
    }

    /// The server and the masked token.
    public var description: String { "ClientConfiguration(baseURL: \(baseURL.absoluteString), token: \(maskedToken))" }

    /// The server, the masked token and the patience.
    public var debugDescription: String {
        "ClientConfiguration(baseURL: \(baseURL.absoluteString), token: \(maskedToken), requestTimeout: \(requestTimeout), "
            + "retries: \(retries), backoff: \(backoff), maximumBackoff: \(maximumBackoff), streamIdleTimeout: \(streamIdleTimeout))"
    }

    /// What `dump` and debuggers show: every property, the token masked.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "baseURL": baseURL, "token": maskedToken, "requestTimeout": requestTimeout, "retries": retries, "backoff": backoff,
                "maximumBackoff": maximumBackoff, "streamIdleTimeout": streamIdleTimeout,
            ], displayStyle: .struct)
    }
}

/// Why the answer of a request that took effect is not given again (`TaskbaseClientError.tookEffect`).
public enum AnswerNotKept: String, Sendable, Hashable {
    /// It succeeded; its answer held a secret shown only once, or was too long to keep
    /// (`answer_withheld`).
    case withheld
    /// It made its change, then failed or lost its server (`answer_lost`).
    case lost
}

/// What the client reports besides the service's own `TaskError`s.
public enum TaskbaseClientError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The token is missing, unknown, expired or revoked (401).
    case unauthorized(String)
    /// The server refused for an HTTP reason (size, rate, overload, fault): status and detail.
    case http(status: Int, detail: String)
    /// The server could not be reached or the connection failed: what happened.
    case transport(String)
    /// The server answered something this client cannot read.
    case invalidResponse(String)
    /// The client is not set up: what to do.
    case configuration(String)
    /// A local file to send or to write cannot be: its path and why.
    case file(String)
    /// A retried POST whose first attempt took effect, with no answer to give again (409):
    /// `.withheld` when it succeeded and its answer held a new token's secret or was too long to
    /// keep, `.lost` when it failed, or its server stopped, after making its change. Sending it
    /// again would do it twice: look at what it made instead.
    case tookEffect(AnswerNotKept, detail: String)

    /// An event the stream cannot read: reconnecting would read it again, so the feed ends.
    struct Unreadable: Error {
        var error: TaskbaseClientError
    }

    /// One line for people.
    public var description: String {
        switch self {
        case .unauthorized(let detail): "the server refused the token: \(detail)"
        case .http(let status, let detail): "the server answered \(status): \(detail)"
        case .transport(let detail): "cannot reach the server: \(detail)"
        case .invalidResponse(let detail): "the server's answer is not readable: \(detail)"
        case .configuration(let detail): "the client is not configured: \(detail)"
        case .file(let detail): "cannot use the local file \(detail)"
        case .tookEffect(let answer, let detail): "the request took effect, and its answer is \(answer.rawValue): \(detail)"
        }
    }
}
