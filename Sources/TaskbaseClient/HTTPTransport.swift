import Foundation
import SafeFiles
import TaskCore
import TaskbaseWire

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP exchange of the client, before it is sent.
struct HTTPRequest: Sendable {
    /// `GET`, `POST`, ...
    var method: String
    /// The path's segments under the base URL, unescaped (`["v1", "tasks", "CORE-42"]`).
    var path: [String]
    /// Query parameters, in order.
    var query: [URLQueryItem] = []
    /// A JSON body.
    var body: Data?
    /// A file sent as the body instead, read from disk as it goes (its `Content-Type` in
    /// `headers`).
    var bodyFile: URL?
    /// Where a successful response's body goes instead of memory: written to disk as it
    /// arrives, and put at this path only once it arrived whole (`HTTPTransport.download(_:to:)`).
    var destination: URL?
    /// Extra headers (`If-Match`, `Last-Event-ID`).
    var headers: [String: String] = [:]

    /// Safe to send twice: idempotent by method, or a POST carrying an `Idempotency-Key`.
    var isRetryable: Bool {
        ["GET", "HEAD", "PUT", "DELETE", "OPTIONS"].contains(method) || (method == "POST" && headers["Idempotency-Key"] != nil)
    }
}

/// A response: status, headers and body.
struct HTTPResponse: Sendable {
    var status: Int
    var headers: [String: String]
    var body: Data

    func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// Sends requests with the token, a timeout, safe retries and cancellation, and turns problem
/// documents into the `TaskError` they carry.
final class HTTPTransport: Sendable, CustomReflectable {
    let configuration: ClientConfiguration
    private let session: URLSession
    /// Why no request can reach the configured server, when none can (`unreachableLiteral`):
    /// every call, the event feed's too, throws it before trying.
    let unreachable: TaskbaseClientError?
    /// The answers kept for conditional GETs (`If-None-Match`).
    let conditional = ConditionalCache()

    init(configuration: ClientConfiguration) {
        self.configuration = configuration
        unreachable = ClientConfiguration.unreachableLiteral(configuration.baseURL)
        let settings = URLSessionConfiguration.ephemeral
        settings.timeoutIntervalForRequest = configuration.requestTimeout.seconds
        settings.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: settings, delegate: RedirectRefusal(), delegateQueue: nil)
    }

    deinit { session.finishTasksAndInvalidate() }

    /// What `dump` shows: the configuration, its token masked.
    var customMirror: Mirror { Mirror(self, children: ["configuration": configuration]) }

    /// `attempt` given the token to send. With a token provider, a refusal of the token (401)
    /// runs it once more with a fresh one: the server refuses a token before doing anything,
    /// so sending any request again is safe.
    func authorized<Value>(_ attempt: (_ token: String) async throws -> Value) async throws -> Value {
        guard let provider = configuration.tokenProvider else { return try await attempt(configuration.token) }
        do {
            return try await attempt(try await provider(false))
        } catch TaskbaseClientError.unauthorized {
            return try await attempt(try await provider(true))
        }
    }

    /// `segment` as one path segment: all but letters, digits, `-._~` (unreserved), `@` and `:`
    /// escaped, so a `/`, `?`, `#`, `%` or `+` in a value (an email may hold any of them) stays
    /// inside its segment, read back as it was.
    static func escapedSegment(_ segment: String) -> String {
        segment.addingPercentEncoding(withAllowedCharacters: segmentCharacters) ?? segment
    }

    private static let segmentCharacters = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~@:")

    /// The URL request for `request`, with `token` and JSON headers.
    func urlRequest(_ request: HTTPRequest, token: String, timeout: Duration? = nil) -> URLRequest {
        var url = configuration.baseURL
        if var components = URLComponents(url: url, resolvingAgainstBaseURL: false) {
            // Each segment escaped on its own (appendPathComponent would take a '/' in an
            // email for a separator): the server splits on real slashes only.
            var base = components.percentEncodedPath
            while base.hasSuffix("/") { base.removeLast() }
            components.percentEncodedPath = base + "/" + request.path.map(Self.escapedSegment).joined(separator: "/")
            if !request.query.isEmpty {
                components.queryItems = request.query
                // '+' is a space to many form decoders; send it escaped.
                components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
            }
            url = components.url ?? url
        }
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = request.method
        urlRequest.timeoutInterval = (timeout ?? configuration.requestTimeout).seconds
        urlRequest.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        urlRequest.setValue("application/json", forHTTPHeaderField: "Accept")
        if let body = request.body {
            urlRequest.httpBody = body
            urlRequest.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        return urlRequest
    }

    /// Sends `request` and returns a 2xx or 304 response; a refusal throws its `TaskError`
    /// (or a `TaskbaseClientError`). Retries a retryable request after a connection failure,
    /// a 503 or a 429, and any request that was never sent (`neverSent`), pausing as
    /// `configuration` (and `Retry-After`) say.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        if let unreachable { throw unreachable }
        return try await authorized { token in try await send(request, token: token) }
    }

    private func send(_ request: HTTPRequest, token: String) async throws -> HTTPResponse {
        var attempt = 0
        var urlRequest = urlRequest(request, token: token)
        // A GET kept from before is asked for only if it changed; a 304 gives the kept answer.
        let conditionalURL =
            request.method == "GET" && request.destination == nil && request.headers["If-None-Match"] == nil ? urlRequest.url?.absoluteString : nil
        let kept = conditionalURL.flatMap(conditional.entry(for:))
        if let kept { urlRequest.setValue(kept.tag, forHTTPHeaderField: "If-None-Match") }
        // Whether an earlier attempt may have taken effect: its answer was lost (a connection
        // failure or timeout), or it was a 503, which shutdown gives a request it may have run.
        var mayHaveRun = false
        // When the server first said our earlier attempt of this POST is still running.
        var runningSince: ContinuousClock.Instant?
        while true {
            let outcome: Result<HTTPResponse, any Error>
            do {
                var response = try await exchange(urlRequest, file: request.bodyFile, destination: request.destination)
                if let conditionalURL {
                    if response.status == 304, let kept {
                        response = conditional.refreshed(kept, with: response, for: conditionalURL)
                    } else if response.status != 503 && response.status != 429 {
                        conditional.remember(response, for: conditionalURL)
                    }
                }
                outcome = .success(response)
            } catch let error as CancellationError {
                throw error
            } catch TaskbaseClientError.file(let detail) {
                throw TaskbaseClientError.file(detail)
            } catch {
                outcome = .failure(error)
            }
            let retryAfter: Duration?
            switch outcome {
            case .success(let response) where response.status == 503 || response.status == 429:
                retryAfter = Self.retryAfter(of: response)
            case .success(let response)
            where attempt > 0 && Self.isConflict(response, .idempotencyKeyInUse) && request.headers["Idempotency-Key"] != nil:
                // Our first attempt of this POST is still running on the server (its answer was
                // lost to a timeout or a dropped connection): wait, and a later retry gets it.
                // For up to the request timeout, whatever `retries` says (three asks took under
                // a second, and a slow import outlasts them); then the outcome is unknown.
                let since = runningSince ?? .now
                runningSince = since
                guard ContinuousClock.now - since < configuration.requestTimeout else {
                    throw TaskbaseClientError.http(
                        status: 409,
                        detail:
                            "the first attempt of \(request.method) /\(request.path.joined(separator: "/")) was still running after \(configuration.requestTimeout), so whether it took effect is unknown: look before sending it again (a new call makes a new Idempotency-Key)"
                    )
                }
                try await Task.sleep(for: min(configuration.maximumBackoff, configuration.pause(before: attempt)))
                continue
            case .success(let response) where request.method == "DELETE" && mayHaveRun && Self.isConflict(response, .answerLost):
                // The deletion took effect and its answer was lost with the attempt (its server
                // stopped after the commit): done, as the 410 below. A DELETE whose answer has a
                // body (a member's removal) is told apart by its empty body.
                return HTTPResponse(status: 204, headers: response.headers, body: Data())
            case .success(let response) where response.status == 410 && request.method == "DELETE" && mayHaveRun:
                // What the retry was to delete is gone (taskserve's 410: its history ends in its
                // deletion), most likely by the attempt whose answer was lost: done, as in
                // process, not "not found". A 404 is a task never there: not found.
                return HTTPResponse(status: 204, headers: response.headers, body: Data())
            case .success(let response):
                return try Self.accept(response)
            case .failure:
                retryAfter = .zero
            }
            // One that never left the client (no connection: a server restarting) is safe to
            // send again whatever its method.
            let wasNeverSent = if case .failure(let error) = outcome { Self.neverSent(error) } else { false }
            if case .failure = outcome, !wasNeverSent { mayHaveRun = true }
            // A 503 may come from a request that ran: shutdown's answer to one still running, or
            // a database lost during its commit. (One refused before running is not told apart;
            // a DELETE's retry tells a task gone, 410, from one never there, 404.)
            if case .success(let response) = outcome, response.status == 503 { mayHaveRun = true }
            attempt += 1
            guard request.isRetryable || wasNeverSent, attempt <= configuration.retries, let retryAfter,
                let pause = configuration.pause(before: attempt, serverSaid: retryAfter)
            else {
                switch outcome {
                case .success(let response): return try Self.accept(response)
                case .failure(let error): throw Self.transportError(error)
                }
            }
            try await Task.sleep(for: pause)
        }
    }

    /// One round trip; cancelling the calling task cancels the data task. With `file`, the body
    /// is read from it as it is sent; with `destination`, it is a `download(_:to:)`.
    private func exchange(_ request: URLRequest, file: URL? = nil, destination: URL? = nil) async throws -> HTTPResponse {
        if let destination { return try await download(request, to: destination) }
        let box = DataTaskBox()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPResponse, any Error>) in
                let finish = { @Sendable (data: Data?, response: URLResponse?, error: (any Error)?) in
                    if let error {
                        continuation.resume(throwing: Self.isCancellation(error) ? CancellationError() : error)
                    } else if let response = response as? HTTPURLResponse {
                        continuation.resume(
                            returning: HTTPResponse(status: response.statusCode, headers: Self.headers(of: response), body: data ?? Data()))
                    } else {
                        continuation.resume(throwing: TaskbaseClientError.invalidResponse("no HTTP response"))
                    }
                }
                let task: URLSessionTask
                if let file {
                    task = session.uploadTask(with: request, fromFile: file) { data, response, error in finish(data, response, error) }
                } else {
                    task = session.dataTask(with: request) { data, response, error in finish(data, response, error) }
                }
                box.start(task)
            }
        } onCancel: {
            box.cancel()
        }
    }

    /// `request` with a success's body written to a file beside `destination` as it arrives
    /// and put there in one step (`AtomicFile`) once it arrived whole: `destination` is either
    /// what it was or the whole new file, never part of it, and a file replaced keeps its
    /// permissions. A download cut off, refused, cancelled or failing to write leaves nothing
    /// behind, there or in the temporary folder. A refusal's response comes back as it is.
    private func download(_ request: URLRequest, to destination: URL) async throws -> HTTPResponse {
        let file: AtomicFile
        do {
            file = try AtomicFile(replacing: destination)
        } catch {
            throw TaskbaseClientError.file("\(error)")
        }
        defer { file.abandon() }
        let connection = StreamingConnection(request, writingTo: file)
        return try await withTaskCancellationHandler {
            let response = try await connection.response()
            guard StreamingConnection.isSuccess(response.status) else { return response }
            for try await _ in connection.chunks {}
            try Task.checkCancellation()
            do {
                try file.commit()
            } catch {
                throw TaskbaseClientError.file("\(error)")
            }
            return response
        } onCancel: {
            connection.close()
        }
    }

    static func headers(of response: HTTPURLResponse) -> [String: String] {
        var headers: [String: String] = [:]
        for (name, value) in response.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name] = value }
        }
        return headers
    }

    /// How long `response` (a 503 or a 429) asks to wait before the next attempt: its
    /// `Retry-After`, in seconds or as an HTTP date (RFC 9110 §10.2.3; a proxy may send one),
    /// counted from `now`; zero when it names none, one in the past, or one unreadable.
    static func retryAfter(of response: HTTPResponse, now: Date = Date()) -> Duration {
        guard let value = response.header("Retry-After")?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return .zero }
        // At most a day: a clock's instant plus more overflows (the change feed waits what it is
        // told, and a `Retry-After` of Int.max seconds trapped).
        if value.allSatisfy(\.isASCII), value.allSatisfy(\.isNumber) {
            return .seconds(min(Int(value) ?? Self.longestRetryAfter, Self.longestRetryAfter))
        }
        guard let date = httpDate.withLock({ $0.date(from: value) }) else { return .zero }
        let seconds = min(max(0, date.timeIntervalSince(now)), Double(Self.longestRetryAfter))
        return .milliseconds(Int((seconds * 1000).rounded(.up)))
    }

    /// The longest `Retry-After` taken as said, in seconds: a day.
    static let longestRetryAfter = 86_400

    /// The HTTP date's preferred form (IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`).
    private static let httpDate = MutexBox<DateFormatter>(
        {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
            return formatter
        }())

    /// Whether `response` is a 409 of problem `code`: `idempotency_key_in_use` (a request with the
    /// same `Idempotency-Key` is still running), or `answer_lost` (the first attempt with it took
    /// effect and its answer was lost). The same key with another request is 422, and a first
    /// answer not replayed since it held a secret is 409 `answer_withheld`.
    static func isConflict(_ response: HTTPResponse, _ code: ProblemCode) -> Bool {
        response.status == 409 && (try? WireJSON.makeDecoder().decode(ProblemDocument.self, from: response.body))?.code == code.rawValue
    }

    /// The response when it is a success; otherwise the error its problem document names.
    /// Whether `error` says the request never reached the server: no connection was made.
    static func neverSent(_ error: any Error) -> Bool {
        guard let error = error as? URLError else { return false }
        return [.cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .notConnectedToInternet, .badURL, .unsupportedURL].contains(error.code)
    }

    static func accept(_ response: HTTPResponse) throws -> HTTPResponse {
        if (200..<300).contains(response.status) || response.status == 304 { return response }
        throw refusal(of: response)
    }

    /// The error a refusal stands for. A server's failure (5xx) names the request's id when the
    /// server gave one, so whoever reports it can quote it and the operator find the server's
    /// log line by it. A redirect, never followed (`RedirectRefusal`), names where it pointed.
    static func refusal(of response: HTTPResponse) -> any Error {
        if (300..<400).contains(response.status) {
            return TaskbaseClientError.configuration(
                "the server answered \(response.status) to \(response.header("Location") ?? "no Location"); "
                    + "the client does not follow redirects: set baseURL to the API's own address")
        }
        let (status, body, requestID) = (response.status, response.body, response.header("X-Request-Id"))
        let problem = try? WireJSON.makeDecoder().decode(ProblemDocument.self, from: body)
        if let error = problem?.taskError { return error }
        var detail = problem?.detail ?? String(decoding: body.prefix(500), as: UTF8.self)
        if status == 409, let problem {
            switch ProblemCode(rawValue: problem.code) {
            case .answerWithheld?: return TaskbaseClientError.tookEffect(.withheld, detail: detail)
            case .answerLost?: return TaskbaseClientError.tookEffect(.lost, detail: detail)
            default: break
            }
        }
        if status == 401 { return TaskbaseClientError.unauthorized(detail) }
        if status >= 500, let requestID { detail += " (request \(requestID))" }
        return TaskbaseClientError.http(status: status, detail: detail)
    }

    /// Whether `error` is URLSession's word that a task was cancelled (by the calling task's
    /// cancellation, or by the client closing it): a `CancellationError` to the caller.
    static func isCancellation(_ error: any Error) -> Bool {
        (error as? URLError)?.code == .cancelled
    }

    static func transportError(_ error: any Error) -> any Error {
        if error is TaskError || error is TaskbaseClientError || error is CancellationError { return error }
        return TaskbaseClientError.transport((error as? URLError).map { "\($0.code.rawValue) \($0.localizedDescription)" } ?? "\(error)")
    }
}

/// Answers every redirect with "do not follow": the API never redirects, and URLSession would
/// send the request's `Authorization` (the token) to wherever a `Location` points, another
/// host included. The redirect itself becomes the answer, an error naming it
/// (`HTTPTransport.refusal(of:)`). The delegate of the transport's session; each event
/// stream's `StreamingConnection` refuses redirects the same way.
final class RedirectRefusal: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}

/// Holds a data task so a cancellation arriving before or after it starts still cancels it.
final class DataTaskBox: Sendable {
    private struct State {
        var task: URLSessionTask?
        var isCancelled = false
    }
    private let state = MutexBox(State())

    func start(_ task: URLSessionTask) {
        let cancelled = state.withLock { state in
            state.task = task
            return state.isCancelled
        }
        if cancelled { task.cancel() } else { task.resume() }
    }

    func cancel() {
        state.withLock { state in
            state.isCancelled = true
            return state.task
        }?.cancel()
    }
}
