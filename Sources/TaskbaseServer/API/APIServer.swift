import APITokens
import Foundation
import PGStore
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
    let options: APIOptions

    private init(
        http: HTTPServer, router: Router, verifier: TokenVerifier, eventHubs: TeamEventHubs, log: (@Sendable (String) -> Void)?, options: APIOptions
    ) {
        self.http = http
        self.router = router
        self.verifier = verifier
        self.eventHubs = eventHubs
        self.log = log
        self.options = options
    }

    /// Starts serving `service` on `host:port` (0: any free port); `log` receives one JSON line
    /// per request (method, route, path, status, duration, token prefix — never a secret).
    public static func start(
        service: TaskService, options: APIOptions, host: String = "127.0.0.1", port: UInt16 = 0, limits: HTTPServerLimits = HTTPServerLimits(),
        tls: HTTPServerTLS? = nil, log: (@Sendable (String) -> Void)? = nil
    ) throws -> APIServer {
        let verifier = TokenVerifier(
            service: service, secrets: options.secrets, failureLimit: options.authFailureLimit, proxies: options.trustedProxies,
            identity: options.identity)
        let eventHubs = TeamEventHubs(service: service)
        let router = buildRouter(service: service, verifier: verifier, options: options, eventHubs: eventHubs)
        let record = AccessLog.Recorder(log: log, metrics: options.metrics, proxies: verifier.proxies)
        let http = try HTTPServer.start(
            host: host, port: port, limits: limits, tls: tls, bodyPolicy: { router.bodyPolicy(method: $0, path: $1) },
            answeredEarly: { request, response in
                // Refused before any handler ran (framing, size, Host, a busy or stopping server):
                // an id and a log line all the same, so the refusal a client reports is found,
                // and the CORS grant, so a browser page can read it.
                var response = router.granted(response, for: request)
                let requestID = RequestID.of(request)
                response.headers.append(("X-Request-Id", requestID))
                record(
                    request, response, route: router.label(request.method, request.path), tokenPrefix: TokenVerifier.Bearer(of: request).prefix,
                    requestID: requestID, duration: .zero)
                return response
            },
            admitUpload: { await router.admitUpload($0) }
        ) { request in
            let started = ContinuousClock.now
            let requestID = RequestID.of(request)
            var (response, route, prefix) = await router.respond(to: request)
            response.headers.append(("X-Request-Id", requestID))
            // Cancelled, it was cut off by shutdown, which answered it 503 and logged that (this
            // answer goes nowhere): one line per request.
            guard record.records, !Task.isCancelled else { return response }
            record(request, response, route: route, tokenPrefix: prefix, requestID: requestID, duration: ContinuousClock.now - started)
            return response
        }
        // Listening for token revocations starts once the port is ours: a server that cannot
        // listen leaves no connection being made behind it as the program exits. Until the
        // listener is up, tokens are looked up on every request, never served from the cache.
        verifier.start()
        return APIServer(http: http, router: router, verifier: verifier, eventHubs: eventHubs, log: log, options: options)
    }

    /// The base URL, `http://127.0.0.1:PORT` (an IPv6 address in brackets, `http://[::1]:PORT`;
    /// `https://` with TLS).
    public var baseURL: String { http.baseURL }

    /// Stops gracefully: no new connections, event streams ended, in-flight requests answered;
    /// those the grace cut off (503) are logged as every other request is, with the prefix of
    /// the token they carried.
    public func shutdown(grace: Duration = .seconds(10)) async {
        let (router, record) = (router, AccessLog.Recorder(log: log, metrics: options.metrics, proxies: verifier.proxies))
        await http.shutdown(grace: grace) { request, response, duration in
            record(
                request, response, route: router.label(request.method, request.path), tokenPrefix: TokenVerifier.Bearer(of: request).prefix,
                requestID: RequestID.supplied(by: request), duration: duration)
        }
        await verifier.stopAndWait()
    }
}

extension APIServer {
    /// Serves `GET /metrics` on `host:port` (0: any free port), apart from the API: what
    /// `options.metrics` counted, this server's gauges (requests in flight, event streams and
    /// hubs, the build), and `samples()` (the database pool's, in taskserve). Nothing else is
    /// served there; no token is asked for, so bind it where only the scraper reaches. A
    /// server started without `options.metrics` counts nothing, and is refused here rather than
    /// exposing counters that stay at zero.
    public func startMetrics(host: String, port: UInt16, samples: @escaping @Sendable () -> [MetricsSample] = { [] }) throws -> HTTPServer {
        guard let metrics = options.metrics else {
            throw HTTPServerStartFailure(
                description: "this server counts no requests: set APIOptions.metrics before starting it, then start /metrics")
        }
        let (http, eventHubs, version, router) = (http, eventHubs, options.version, router)
        let started = Date().timeIntervalSince1970
        return try HTTPServer.start(host: host, port: port, limits: HTTPServerLimits(maxBodyBytes: 0, maxConnections: 16)) { request in
            // A method taskserve takes on no path is 501 here too, as on the API's port.
            guard router.implements(request.method) else { return router.unimplemented(request.method) }
            guard request.path == "/metrics" else { return ServerProblems.response(.notFound(what: "route \(request.path)")) }
            guard request.method == "GET" || request.method == "HEAD" else {
                let problem = ProblemDocument(.methodNotAllowed, detail: "/metrics answers GET, not \(request.method)")
                return ServerProblems.response(problem, headers: [("Allow", "GET, HEAD")])
            }
            let own = [
                MetricsSample("taskbase_http_requests_in_flight", .gauge, help: "Requests being answered now.", value: Double(http.inFlight)),
                MetricsSample("taskbase_event_streams_open", .gauge, help: "Event streams open now.", value: Double(http.openStreams)),
                MetricsSample(
                    "taskbase_event_hubs", .gauge, help: "Teams whose changes this process fans out (one LISTEN each).",
                    value: Double(eventHubs.count)),
                MetricsSample("taskbase_build_info", .gauge, help: "The running build.", labels: [("version", version)], value: 1),
                MetricsSample(
                    "process_start_time_seconds", .gauge, help: "When the process started, in seconds since 1970.", value: started.rounded()),
            ]
            return HTTPResponse(
                status: 200, headers: [("Content-Type", "text/plain; version=0.0.4; charset=utf-8")],
                body: .bytes(Array(metrics.exposition(own + samples()).utf8)))
        }
    }
}

extension MetricsSample {
    /// What a connection pool tells operators: its connections by state, the requests waiting
    /// for one, and the connections it has made and failed to make.
    public static func pool(_ statistics: PGPoolStatistics) -> [MetricsSample] {
        let connections = "taskbase_db_pool_connections"
        let help = "Database connections of the pool, by state."
        return [
            MetricsSample(connections, .gauge, help: help, labels: [("state", "idle")], value: Double(statistics.idle)),
            MetricsSample(connections, .gauge, help: help, labels: [("state", "in_use")], value: Double(statistics.inUse)),
            MetricsSample(connections, .gauge, help: help, labels: [("state", "opening")], value: Double(statistics.opening)),
            MetricsSample("taskbase_db_pool_waiting", .gauge, help: "Requests waiting for a database connection.", value: Double(statistics.waiting)),
            MetricsSample(
                "taskbase_db_pool_connections_created_total", .counter, help: "Database connections the pool has opened.",
                value: Double(statistics.created)),
            MetricsSample(
                "taskbase_db_pool_connect_failures_total", .counter, help: "Attempts to open a database connection that failed.",
                value: Double(statistics.failed)),
        ]
    }
}

/// The access log: one JSON object per request, `at`, `client` (its address, the one behind a
/// trusted proxy; null when unknown), `duration_ms`, `method`, `path`, `request_id` (as
/// `X-Request-Id` answered it), `route`, `status`, `token` (its prefix, or null), and on a failure
/// that is no refusal (500, or a 503 the database caused) `error` (`ServerFailures.logged`), written
/// without Foundation's encoder (it was a twentieth of a point read's CPU).
enum AccessLog {
    /// Where a request answered is counted and logged: `/metrics` and the access log, each when on.
    struct Recorder: Sendable {
        let log: (@Sendable (String) -> Void)?
        let metrics: APIMetrics?
        let proxies: TrustedProxies

        /// Whether it records anything at all.
        var records: Bool { log != nil || metrics != nil }

        /// Counts `response` to `request` under `route`, and writes its access-log line.
        func callAsFunction(
            _ request: HTTPRequest, _ response: HTTPResponse, route: String, tokenPrefix: String?, requestID: String?, duration: Duration
        ) {
            metrics?.record(route: route, status: response.status, duration: duration)
            log?(
                AccessLog.line(
                    request: request, response: response, route: route, tokenPrefix: tokenPrefix, client: proxies.client(of: request),
                    requestID: requestID, duration: duration))
        }
    }

    /// The line for one request.
    static func line(
        request: HTTPRequest, response: HTTPResponse, route: String, tokenPrefix: String?, client: PeerAddress?, requestID: String?,
        duration: Duration
    ) -> String {
        let milliseconds = duration.seconds * 1_000
        var writer = JSONWriter(capacity: 256)  // a task read's line is about 215 bytes
        writer.beginObject()
        writer.field("at", Date())
        writer.field("client", client?.description)
        writer.field("duration_ms", (milliseconds * 1_000).rounded() / 1_000)
        writer.field("method", request.method)
        writer.field("path", request.path)
        writer.field("request_id", requestID)
        writer.field("route", route)
        writer.field("status", Int64(response.status))
        writer.field("token", tokenPrefix)
        if let failure = response.failure { writer.field("error", failure) }
        writer.endObject()
        writer.newline()
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
