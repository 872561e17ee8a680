import Foundation
import PGStore
import TaskCore
import TaskbaseWire

/// One route: a method and a path pattern like `/v1/tasks/{key}`, whether it needs a token,
/// and the handler. A class: every request looks through the table, which then copies no fields.
public final class Route: Sendable {
    /// `GET`, `POST`, ...
    public let method: String
    /// The pattern, with `{name}` for a path parameter.
    public let pattern: String
    /// Whether a bearer token is required.
    public let authenticated: Bool
    /// The largest body this route reads, when it is not the server's default.
    public let maxBodyBytes: Int?
    /// Whether its body goes to a temporary file as it arrives (`HTTPRequest.spooledBody`).
    public let spoolsBody: Bool
    /// The query parameters it reads: what its handler takes and the OpenAPI document lists.
    let query: RouteQuery
    let handler: @Sendable (RouteContext) async throws -> HTTPResponse
    let segments: [Substring]
    /// `GET /v1/tasks/{key}`: the route as the access log and the OpenAPI operations name it.
    public var label: String { "\(method) \(pattern)" }
    /// The pattern's fixed segments by position, and its parameters' positions and names.
    private let literals: [(index: Int, text: Substring)]
    private let slots: [(index: Int, name: String)]

    /// A route answering `method pattern` with `handler`.
    init(
        _ method: String, _ pattern: String, authenticated: Bool = true, query: RouteQuery = .none, maxBodyBytes: Int? = nil,
        spoolsBody: Bool = false, _ handler: @escaping @Sendable (RouteContext) async throws -> HTTPResponse
    ) {
        self.spoolsBody = spoolsBody
        self.query = query
        self.method = method
        self.pattern = pattern
        self.authenticated = authenticated
        self.maxBodyBytes = maxBodyBytes
        self.handler = handler
        segments = pattern.split(separator: "/")
        literals = segments.enumerated().filter { !$0.element.hasPrefix("{") }.map { ($0.offset, $0.element) }
        slots = segments.enumerated().filter { $0.element.hasPrefix("{") }.map { ($0.offset, String($0.element.dropFirst().dropLast())) }
    }

    /// The path parameters when `path` matches, nil otherwise.
    func match(_ path: [Substring]) -> PathParameters? {
        guard path.count == segments.count else { return nil }
        // The literal segments first: most routes are ruled out before anything is allocated.
        for (index, literal) in literals where path[index] != literal { return nil }
        var parameters = PathParameters()
        parameters.pairs.reserveCapacity(slots.count)
        for (index, name) in slots { parameters.pairs.append((name, String(path[index]))) }
        return parameters
    }

    /// The names of the path parameters, in order.
    public var parameterNames: [String] { slots.map(\.name) }
}

/// A route's path parameters by name, in the pattern's order. At most a few, so found by
/// looking through them: no dictionary is built and hashed for each request.
public struct PathParameters: Sendable {
    var pairs: [(name: String, value: String)] = []

    /// The value of parameter `name`, if the pattern has it.
    public subscript(name: String) -> String? {
        pairs.first { $0.name == name }?.value
    }
}

/// What a handler gets: the request, its path parameters, and the authenticated user.
public struct RouteContext: Sendable {
    /// The request.
    public let request: HTTPRequest
    /// The path parameters by name.
    public let parameters: PathParameters
    /// The token's user; nil on routes that need none.
    public let caller: Caller?
    /// The route answering.
    let route: Route
    /// The pattern of the route answering, e.g. `/v1/teams/{team}/tasks`.
    var pattern: String { route.pattern }

    /// The acting user, for the service.
    var actor: UserRef {
        get throws {
            guard let caller else { throw TaskError.permissionDenied(what: "call this route", why: "no token was given") }
            return .id(caller.user.id)
        }
    }

    /// The token the request carried ("" when none), to check again during a long answer (an
    /// event stream, an export): a token revoked meanwhile ends it.
    var tokenSecret: String {
        if case .secret(let secret) = TokenVerifier.Bearer(of: request) { secret } else { "" }
    }

    /// Path parameter `name`.
    func parameter(_ name: String) -> String {
        parameters[name] ?? ""
    }

    /// Refuses a query parameter the route does not declare (`Route.query`), unless the route
    /// ignores others: a validation error naming it.
    func refuseUndeclaredParameters() throws {
        try route.query.refuseUndeclared(in: request)
    }

    /// The body decoded as `type`; anything wrong is a validation error (a body that is not
    /// JSON at all is answered 400). A body sent as another media type than `mediaTypes`
    /// (case ignored, parameters such as `charset` allowed; none said is taken as JSON) is
    /// 415, which names the type to send: `curl -d` says form data unless told otherwise. On a
    /// PATCH route the 415 (a compressed body's too) carries `Accept-Patch` with `mediaTypes`,
    /// the patch documents it takes (RFC 5789 §2.2 and §3.1).
    func body<Document: Decodable>(_ type: Document.Type, as mediaTypes: [String] = ["application/json"]) throws -> Document {
        do {
            _ = try bodyCoding(accepting: [])
            guard request.sendsBody(as: mediaTypes) else {
                throw ProblemDocument(
                    .unsupportedMediaType,
                    detail:
                        "\(request.method) \(request.path) takes \(mediaTypes.joined(separator: " or ")), not \(request.header("content-type") ?? ""): send Content-Type: \(mediaTypes[0])"
                )
            }
        } catch let problem as ProblemDocument where route.method == "PATCH" {
            throw ServerProblems.Refusal(problem: problem, headers: [("Accept-Patch", mediaTypes.joined(separator: ", "))])
        }
        return try WireJSON.decodeBody(type, from: Data(request.body))
    }

    /// The body's `Content-Encoding` when it is one of `codings` (lowercased); nil when it has
    /// none (or `identity`). Any other is 415, naming what the route takes.
    func bodyCoding(accepting codings: Set<String>) throws -> String? {
        guard let sent = request.header("content-encoding")?.trimmingSpaces().lowercased(), !sent.isEmpty, sent != "identity" else { return nil }
        guard codings.contains(sent) else {
            let takes = codings.isEmpty ? "an uncompressed body" : "a body as it is or as \(codings.sorted().joined(separator: " or "))"
            throw ProblemDocument(
                .unsupportedMediaType, detail: "\(request.method) \(request.path) takes \(takes), not Content-Encoding: \(sent)")
        }
        return sent
    }
}

/// The routes of the API and how a request finds one: authentication, errors as problems.
public struct Router: Sendable {
    /// Every route, in the order they are tried.
    public let routes: [Route]
    let authenticator: any RequestAuthenticator
    /// Each user's allowance, when there is one (`APIOptions.rateLimit`).
    let limiter: RateLimiter<UserID>?
    /// The web pages that may call from a browser, when any (`APIOptions.cors`).
    let cors: CORSPolicy?
    /// gzip for larger answers, when on (`APIOptions.compression`).
    let compression: ResponseCompression?
    /// The methods of the routes with a body policy of their own: a request of any other method
    /// needs no route lookup for it before the one that answers it.
    private let cappedMethods: Set<String>
    /// The routes by their number of segments, in table order: a path is matched against
    /// those of its own length only.
    private let routesByLength: [Int: [Route]]
    /// The methods the server takes: its routes', HEAD (a GET route's) and OPTIONS (what a
    /// path takes, or a CORS preflight), in a fixed order. Any other is 501.
    let implementedMethods: [String]

    /// A router over `routes`, authenticating with `authenticator`, allowing each user
    /// `rateLimit`, answering the browsers' CORS checks as `cors` says, compressing as
    /// `compression` says.
    init(
        routes: [Route], authenticator: any RequestAuthenticator, rateLimit: RateLimit? = nil, cors: CORSPolicy? = nil,
        compression: ResponseCompression? = nil
    ) {
        self.routes = routes
        self.authenticator = authenticator
        self.cors = cors
        self.compression = compression
        limiter = rateLimit.map { RateLimiter($0) }
        cappedMethods = Set(routes.filter { $0.maxBodyBytes != nil || $0.spoolsBody }.map(\.method))
        routesByLength = Dictionary(grouping: routes, by: \.segments.count)
        implementedMethods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"].filter { method in
            method == "HEAD" || method == "OPTIONS" || routes.contains { $0.method == method }
        }
    }

    /// The route and parameters for `method path`, or the response saying why there is none.
    func resolve(_ method: String, _ path: String) -> Result<(Route, PathParameters), RoutingMiss> {
        // An empty segment is no segment of any route: `/v1/teams//tasks` (a client's empty
        // team) must be a 404, not `/v1/teams/{team}` for the team TASKS. A trailing slash is
        // forgiven.
        var afterSlash = false
        var escaped = false
        for byte in path.utf8 {
            let slash = byte == UInt8(ascii: "/")
            if slash, afterSlash { return .failure(.noRoute) }
            afterSlash = slash
            escaped = escaped || byte == UInt8(ascii: "%")
        }
        var parts = Self.segments(of: path)
        if escaped {
            // The path comes as sent: each segment is decoded after the split, so an escaped
            // slash is part of its segment (`/v1/teams/CORE%2Fmembers` is the team
            // `CORE/members`, which no key can be, never CORE's members). A malformed escape,
            // bytes that are not UTF-8, or a control character (%00) name nothing.
            var decoded: [Substring] = []
            decoded.reserveCapacity(parts.count)
            for part in parts {
                guard let text = part.removingPercentEncoding, !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
                else { return .failure(.noRoute) }
                decoded.append(Substring(text))
            }
            parts = decoded
        }
        var methods: [String] = []
        for route in routesByLength[parts.count] ?? [] {
            guard let parameters = route.match(parts) else { continue }
            if route.method == method || (method == "HEAD" && route.method == "GET") { return .success((route, parameters)) }
            // A GET route answers HEAD too, so a 405's `Allow` (RFC 9110 §15.5.6: every method the
            // path supports) and a preflight's methods name it.
            methods += route.method == "GET" ? ["GET", "HEAD"] : [route.method]
        }
        return .failure(methods.isEmpty ? .noRoute : .wrongMethod(allowed: methods))
    }

    /// `path` cut at its slashes, empty pieces dropped, as `split(separator: "/")` cuts it but
    /// byte by byte: a slash is one byte of UTF-8, so no character need be formed (the split by
    /// characters was a tenth of a route's own work).
    static func segments(of path: String) -> [Substring] {
        var parts: [Substring] = []
        parts.reserveCapacity(6)
        let bytes = path.utf8
        var start = bytes.startIndex
        var index = start
        while index != bytes.endIndex {
            if bytes[index] == UInt8(ascii: "/") {
                if start != index { parts.append(path[start..<index]) }
                start = bytes.index(after: index)
            }
            index = bytes.index(after: index)
        }
        if start != bytes.endIndex { parts.append(path[start...]) }
        return parts
    }

    /// The label of the route `method path` answers (`Route.label`), `-` when none does.
    func label(_ method: String, _ path: String) -> String {
        guard case .success(let (route, _)) = resolve(method, path) else { return "-" }
        return route.label
    }

    /// The body policy of the route `method path` answers: its cap, and whether it spools.
    func bodyPolicy(method: String, path: String) -> HTTPBodyPolicy {
        guard cappedMethods.contains(method), case .success(let (route, _)) = resolve(method, path) else { return HTTPBodyPolicy() }
        return HTTPBodyPolicy(maxBytes: route.maxBodyBytes, spoolsToFile: route.spoolsBody)
    }

    /// Whether the body of `request`, to a route that spools it (an import), may be stored:
    /// its credential is authenticated from the headers, by the same authenticator `respond`
    /// asks (the handler's own check, once the body is in, then comes from its cache), before a
    /// byte is stored or an upload slot taken. Admitted, the upload counts among its user's;
    /// refused, the refusal is the answer: 401 with the challenge for a missing, malformed,
    /// unknown, expired or revoked token, 429 past the address's failed lookups, 503 when the
    /// database cannot say.
    func admitUpload(_ request: HTTPRequest) async -> HTTPUploadAdmission {
        guard case .success(let (route, _)) = resolve(request.method, request.path), route.authenticated else { return .admitted(holder: nil) }
        switch await authenticator.authenticate(request) {
        case .success(let caller): return .admitted(holder: caller.user.id.description)
        case .failure(let refusal): return .refused(refusal.response)
        }
    }

    /// Answers `request`: finds the route, checks the token, runs the handler, and turns every
    /// refusal into a problem document. Also says which route and token answered, for the log.
    /// From a browser page (an `Origin` header) under a CORS policy, a preflight of a path the
    /// API answers gets 204 and the grant, and every other answer the grant when the origin
    /// is allowed. A JSON read without a version of its own gets a weak `ETag` (`DigestETag`).
    /// A larger answer goes gzipped to a client that takes it (`ResponseCompression`). Then a
    /// read whose `ETag` `If-None-Match` names is `304`: last, so that it says what the 200
    /// would have said (its `Vary`, its `Content-Length`).
    public func respond(to request: HTTPRequest) async -> (response: HTTPResponse, route: String, tokenPrefix: String?) {
        var answered = await grantedAnswer(request)
        DigestETag.tag(&answered.response, for: request)
        await compression?.apply(to: &answered.response, for: request)
        DigestETag.notModified(&answered.response, for: request)
        return answered
    }

    /// The answer to `request` with the CORS grant when one is due.
    private func grantedAnswer(_ request: HTTPRequest) async -> (response: HTTPResponse, route: String, tokenPrefix: String?) {
        guard let cors, let origin = request.header("origin") else { return await answer(request) }
        if request.method == "OPTIONS", request.header("access-control-request-method") != nil,
            case .failure(.wrongMethod(let methods)) = resolve(request.method, request.path),
            let preflight = cors.preflight(origin: origin, methods: methods)
        {
            return (preflight, "CORS preflight", nil)
        }
        var answered = await answer(request)
        answered.response.headers += cors.headers(answering: origin)
        return answered
    }

    /// Whether the server takes `method` on some path; asked only of a request no route
    /// answers, so one that is answered costs nothing more.
    func implements(_ method: String) -> Bool { implementedMethods.contains(method) }

    /// 501 for `method`, which the server takes on no path (RFC 9110 §15.6.2).
    func unimplemented(_ method: String) -> HTTPResponse {
        ServerProblems.notImplemented(method: method, implemented: implementedMethods)
    }

    /// `response`, which the server gave `request` before routing it (`HTTPServer`'s early
    /// answers: a body over the cap, an ambiguous length, a bad `Host`...), with the CORS
    /// grant every other answer to a page carries, so that the page can read the refusal.
    func granted(_ response: HTTPResponse, for request: HTTPRequest) -> HTTPResponse {
        guard let cors, let origin = request.header("origin") else { return response }
        var granted = response
        granted.headers += cors.headers(answering: origin)
        return granted
    }

    private func answer(_ request: HTTPRequest) async -> (response: HTTPResponse, route: String, tokenPrefix: String?) {
        switch resolve(request.method, request.path) {
        case .failure where !implements(request.method):
            return (unimplemented(request.method), "-", nil)
        case .failure(.noRoute):
            return (ServerProblems.response(.notFound(what: "route \(request.path)")), "-", nil)
        case .failure(.wrongMethod(let allowed)) where request.method == "OPTIONS":
            return (Self.options(allowing: allowed), "OPTIONS", nil)
        case .failure(.wrongMethod(let allowed)):
            let methods = Self.allow(allowed)
            let problem = ProblemDocument(.methodNotAllowed, detail: "\(request.path) answers \(methods), not \(request.method)")
            return (ServerProblems.response(problem, headers: [("Allow", methods)]), "-", nil)
        case .success(let (route, parameters)):
            let label = route.label
            var caller: Caller?
            if route.authenticated {
                switch await authenticator.authenticate(request) {
                case .success(let found): caller = found
                case .failure(let refusal): return (refusal.response, label, refusal.tokenPrefix)
                }
            }
            var allowance: [(name: String, value: String)] = []
            if let limiter, let caller {
                switch limiter.admit(caller.user.id) {
                case .refused(let retryAfter):
                    let problem = ProblemDocument(
                        .tooManyRequests,
                        detail:
                            "more than \(limiter.limit.requests) requests per \(limiter.limit.interval.displayText) from this user; retry after \(retryAfter) s"
                    )
                    let headers = [("Retry-After", String(retryAfter))] + Self.allowanceHeaders(limiter.limit, remaining: 0)
                    return (ServerProblems.response(problem, headers: headers), label, caller.credential)
                case .admitted(let remaining):
                    allowance = Self.allowanceHeaders(limiter.limit, remaining: remaining)
                }
            }
            let context = RouteContext(request: request, parameters: parameters, caller: caller, route: route)
            var response: HTTPResponse
            do {
                response = try await route.handler(context)
                try Preconditions.judgeRead(&response, for: request)
            } catch let error as TaskError {
                let status = if case .validation(field: "body", _) = error { 400 } else { error.defaultStatus }
                response = ServerProblems.response(error, status: status)
            } catch let problem as ProblemDocument {
                response = ServerProblems.response(thrown: problem)
            } catch let refusal as ServerProblems.Refusal {
                response = refusal.response
            } catch {
                response = ServerFailures.response(for: error)
            }
            response.headers += allowance
            return (response, label, caller?.credential)
        }
    }
}

extension Router {
    /// The answer to OPTIONS on a path the API answers with `methods` (RFC 9110 §9.3.7): 204,
    /// naming them and OPTIONS in `Allow` and, where PATCH is one, the patch documents it takes
    /// in `Accept-Patch` (RFC 5789 §3.1). No token is asked, as none is for a 405: it says what
    /// the path's pattern takes, never whether what it names exists.
    static func options(allowing methods: [String]) -> HTTPResponse {
        var headers = [(name: "Allow", value: allow(methods))]
        if methods.contains("PATCH") { headers.append((name: "Accept-Patch", value: APIHandlers.patchTypes.joined(separator: ", "))) }
        return HTTPResponse(status: 204, headers: headers)
    }

    /// The `Allow` of a path whose routes take `methods`: them, and OPTIONS, which every path
    /// the API answers takes (a 405's and an OPTIONS answer's alike).
    static func allow(_ methods: [String]) -> String {
        (methods + ["OPTIONS"]).joined(separator: ", ")
    }

    /// What a rate-limited user is told on every answer: the allowance and what is left of it
    /// (as GitHub's API names them).
    static func allowanceHeaders(_ limit: RateLimit, remaining: Int) -> [(name: String, value: String)] {
        [("X-RateLimit-Limit", String(limit.requests)), ("X-RateLimit-Remaining", String(remaining))]
    }
}

/// Why no route answers a request.
enum RoutingMiss: Error {
    /// No pattern matches the path: 404.
    case noRoute
    /// Patterns match but not with this method: 405, `allowed` naming the methods that do
    /// (`HEAD` beside `GET`).
    case wrongMethod(allowed: [String])
}

extension TaskError {
    /// The status `ProblemDocument` gives this refusal.
    var defaultStatus: Int { ProblemDocument(self).status }
}
