import Foundation
import SafeFiles

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One request whose response body is read as it arrives, through a URLSession data delegate:
/// corelibs Foundation has no streaming `bytes(for:)`, and its download tasks leave their
/// temporary file behind whenever a download fails or is refused. The response head comes
/// first, then the body: as chunks (`chunks`, an event stream) or written to a file
/// (`writingTo`, an export). Each connection has its own session, invalidated when it ends;
/// like every request of the client's, it follows no redirect (see `RedirectRefusal`).
final class StreamingConnection: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private struct State {
        var head: CheckedContinuation<HTTPResponse, any Error>?
        /// How the connection ended, kept for a `response()` that comes after it: a task
        /// cancelled before it was sent ends without ever having been waited for.
        var ended: Result<HTTPResponse, any Error>?
        var response: HTTPResponse?
        var refusalBody = Data()
        /// Why the file could not be written, which ended the connection.
        var fileFailure: String?
    }

    /// A success's body, chunk by chunk as it arrives, when it is not written to a file (then
    /// nothing is yielded); ends when the connection does, with the reason it failed.
    let chunks: AsyncThrowingStream<Data, any Error>
    private let chunkSink: AsyncThrowingStream<Data, any Error>.Continuation
    private let file: AtomicFile?
    private let state = MutexBox(State())
    /// The `Last-Event-ID` this connection was opened with, if any.
    var lastEventID: String?
    private var session: URLSession!
    private var task: URLSessionDataTask!

    /// Prepares `request` on a session of its own; `response()` or `open()` sends it. With
    /// `file`, a success's body is written there as it arrives (the caller commits it).
    init(_ request: URLRequest, writingTo file: AtomicFile? = nil) {
        (chunks, chunkSink) = AsyncThrowingStream.makeStream(of: Data.self)
        self.file = file
        super.init()
        let settings = URLSessionConfiguration.ephemeral
        settings.timeoutIntervalForRequest = request.timeoutInterval
        settings.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: settings, delegate: self, delegateQueue: nil)
        task = session.dataTask(with: request)
    }

    /// Sends the request. A success (2xx) returns as soon as its head arrives, its body to
    /// follow; any other status returns once it ended, with its body (the first 64 KiB); a
    /// failed connection throws its transport error.
    func response() async throws -> HTTPResponse {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPResponse, any Error>) in
                let ended = state.withLock { state in
                    if state.ended == nil { state.head = continuation }
                    return state.ended
                }
                if let ended { continuation.resume(with: ended) } else { task.resume() }
            }
        } onCancel: {
            close()
        }
    }

    /// Sends the request and returns once a success's head arrives; a 503 or a 429 throws
    /// `Unavailable` (its `Retry-After` says when to try again), any other status the refusal
    /// its problem document names, a failed connection its transport error.
    func open() async throws {
        let response = try await response()
        if response.status == 503 || response.status == 429 { throw Unavailable(response: response) }
        guard Self.isSuccess(response.status) else { throw HTTPTransport.refusal(of: response) }
    }

    /// A refusal to try again later (503, 429): the answer, for its `Retry-After`, and the
    /// error it is when no retry is left (`refusal`).
    struct Unavailable: Error {
        var response: HTTPResponse
        var refusal: any Error { HTTPTransport.refusal(of: response) }
    }

    /// Ends the connection; the chunk stream finishes.
    func close() {
        task.cancel()
    }

    /// Whether `status` opens the body (2xx): `response()` returns at its head.
    static func isSuccess(_ status: Int) -> Bool { (200..<300).contains(status) }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let http = response as? HTTPURLResponse
        let head = HTTPResponse(status: http?.statusCode ?? 0, headers: http.map(HTTPTransport.headers(of:)) ?? [:], body: Data())
        // A success opens the body now; any other status keeps the waiter for the completion,
        // which hands it the refusal's body.
        let waiter = state.withLock { state -> CheckedContinuation<HTTPResponse, any Error>? in
            state.response = head
            guard Self.isSuccess(head.status) else { return nil }
            defer { state.head = nil }
            return state.head
        }
        waiter?.resume(returning: head)
        completionHandler(.allow)
    }

    /// Refuses every redirect, as `RedirectRefusal` does for the transport's session.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let isOpen = state.withLock { state in
            let isOpen = state.response.map { Self.isSuccess($0.status) } ?? false
            if !isOpen { state.refusalBody.append(data.prefix(64 * 1024 - state.refusalBody.count)) }
            return isOpen && state.fileFailure == nil
        }
        guard isOpen else { return }
        guard let file else {
            chunkSink.yield(data)
            return
        }
        do {
            try data.withUnsafeBytes { try file.write($0) }
        } catch {
            state.withLock { $0.fileFailure = "\(error)" }
            dataTask.cancel()
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (response, body, fileFailure) = state.withLock { ($0.response, $0.refusalBody, $0.fileFailure) }
        let outcome: Result<HTTPResponse, any Error>
        if let error {
            outcome = .failure(HTTPTransport.isCancellation(error) ? CancellationError() : HTTPTransport.transportError(error))
        } else {
            // A redirect not followed may never have been handed to `didReceive`: the task's
            // response is the one it ended with.
            let ended = task.response as? HTTPURLResponse
            outcome = .success(
                HTTPResponse(
                    status: response?.status ?? ended?.statusCode ?? 0,
                    headers: response?.headers ?? ended.map(HTTPTransport.headers(of:)) ?? [:], body: body))
        }
        let head = state.withLock { state in
            defer { state.head = nil }
            state.ended = outcome
            return state.head
        }
        head?.resume(with: outcome)
        if let fileFailure {
            chunkSink.finish(throwing: TaskbaseClientError.file(fileFailure))
        } else if let error, !HTTPTransport.isCancellation(error) {
            chunkSink.finish(throwing: HTTPTransport.transportError(error))
        } else {
            chunkSink.finish()
        }
        session.finishTasksAndInvalidate()
    }
}
