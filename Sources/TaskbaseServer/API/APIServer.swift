import APITokens
import Foundation
import TaskCore
import TaskbaseWire

/// The API served over HTTP: the router over a service, on a libmicrohttpd server, with an
/// access log line per request. Start it on port 0 for tests; `taskserve` is a thin program
/// around it.
public final class APIServer: Sendable {
    /// The HTTP server.
    public let http: HTTPServer
    /// The router, for tests that hold its route table to the OpenAPI document.
    public let router: Router
    let verifier: TokenVerifier
    /// The event streams' fan-out, one hub per team: what tests read its statistics from.
    public let eventHubs: TeamEventHubs
    let log: (@Sendable (String) -> Void)?

    private init(http: HTTPServer, router: Router, verifier: TokenVerifier, eventHubs: TeamEventHubs, log: (@Sendable (String) -> Void)?) {
        self.http = http
        self.router = router
        self.verifier = verifier
        self.eventHubs = eventHubs
        self.log = log
    }

    /// Starts serving `service` on `host:port` (0: any free port); `log` receives one JSON line
    /// per request (method, route, path, status, duration, token prefix — never a secret).
    public static func start(
        service: TaskService, options: APIOptions, host: String = "127.0.0.1", port: UInt16 = 0, limits: HTTPServerLimits = HTTPServerLimits(),
        log: (@Sendable (String) -> Void)? = nil
    ) throws -> APIServer {
        let verifier = TokenVerifier(
            service: service, secrets: options.secrets, failureLimit: options.authFailureLimit, proxies: options.trustedProxies)
        verifier.start()
        let eventHubs = TeamEventHubs(service: service)
        let router = buildRouter(service: service, verifier: verifier, options: options, eventHubs: eventHubs)
        let http = try HTTPServer.start(
            host: host, port: port, limits: limits, bodyPolicy: { router.bodyPolicy(method: $0, path: $1) }
        ) { request in
            let started = ContinuousClock.now
            let (response, route, prefix) = await router.respond(to: request)
            if let log {
                log(
                    AccessLog.line(
                        request: request, response: response, route: route, tokenPrefix: prefix, client: verifier.proxies.client(of: request),
                        duration: ContinuousClock.now - started))
            }
            return response
        }
        return APIServer(http: http, router: router, verifier: verifier, eventHubs: eventHubs, log: log)
    }

    /// The base URL, `http://127.0.0.1:PORT` (an IPv6 address in brackets, `http://[::1]:PORT`).
    public var baseURL: String { "http://" + HTTPServer.authority(http.host, http.port) }

    /// Stops gracefully: no new connections, event streams ended, in-flight requests answered;
    /// those the grace cut off (503) are logged as every other request is, with the prefix of
    /// the token they carried.
    public func shutdown(grace: Duration = .seconds(10)) async {
        let (log, router, proxies) = (log, router, verifier.proxies)
        await http.shutdown(grace: grace) { request, response, duration in
            guard let log else { return }
            log(
                AccessLog.line(
                    request: request, response: response, route: router.label(request.method, request.path),
                    tokenPrefix: TokenVerifier.Bearer(of: request).prefix, client: proxies.client(of: request), duration: duration))
        }
        verifier.stop()
    }
}

/// The access log: one JSON object per request, `at`, `client` (its address, the one behind a
/// trusted proxy; null when unknown), `duration_ms`, `method`, `path`, `route`, `status`,
/// `token` (its prefix, or null), written without Foundation's encoder (it was a twentieth of
/// a point read's CPU).
enum AccessLog {
    /// The line for one request.
    static func line(
        request: HTTPRequest, response: HTTPResponse, route: String, tokenPrefix: String?, client: PeerAddress?, duration: Duration
    ) -> String {
        let milliseconds = duration.seconds * 1_000
        var writer = JSONWriter(capacity: 192)
        writer.beginObject()
        writer.field("at", Date())
        writer.field("client", client?.description)
        writer.field("duration_ms", (milliseconds * 1_000).rounded() / 1_000)
        writer.field("method", request.method)
        writer.field("path", request.path)
        writer.field("route", route)
        writer.field("status", Int64(response.status))
        writer.field("token", tokenPrefix)
        writer.endObject()
        return String(decoding: writer.bytes, as: UTF8.self) + "\n"
    }
}
