import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One open `text/event-stream` request, read through a URLSession data delegate (corelibs
/// Foundation has no streaming `bytes(for:)`): the response head first, then the body's chunks
/// as they arrive. Each connection has its own session, invalidated when it ends; like every
/// request of the client's, it follows no redirect (see `RedirectRefusal`).
final class EventConnection: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private struct State {
        var head: CheckedContinuation<Void, any Error>?
        var status = 0
        var refusalBody = Data()
        var isFinished = false
    }

    /// The body's chunks after a 200 head; ends when the connection does.
    let chunks: AsyncThrowingStream<Data, any Error>
    private let chunkSink: AsyncThrowingStream<Data, any Error>.Continuation
    private let state = MutexBox(State())
    /// The `Last-Event-ID` this connection was opened with, if any.
    var lastEventID: String?
    private var session: URLSession!
    private var task: URLSessionDataTask!

    /// Prepares `request` on a session of its own; `open()` sends it.
    init(_ request: URLRequest) {
        (chunks, chunkSink) = AsyncThrowingStream.makeStream(of: Data.self)
        super.init()
        let settings = URLSessionConfiguration.ephemeral
        settings.timeoutIntervalForRequest = request.timeoutInterval
        settings.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: settings, delegate: self, delegateQueue: nil)
        task = session.dataTask(with: request)
    }

    /// Sends the request and returns once a 200 head arrives; any other status throws the
    /// refusal its problem document names, a failed connection its transport error.
    func open() async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                state.withLock { $0.head = continuation }
                task.resume()
            }
        } onCancel: {
            close()
        }
    }

    /// Ends the connection; the chunk stream finishes.
    func close() {
        task.cancel()
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        // A 200 opens the stream now; any other status keeps the waiter for the completion,
        // which reads the refusal's problem document.
        let head = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            state.status = status
            guard status == 200 else { return nil }
            defer { state.head = nil }
            return state.head
        }
        head?.resume()
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
            if state.status != 200 { state.refusalBody.append(data.prefix(64 * 1024 - state.refusalBody.count)) }
            return state.status == 200
        }
        if isOpen { chunkSink.yield(data) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (head, status, body) = state.withLock { state in
            defer {
                state.head = nil
                state.isFinished = true
            }
            return (state.head, state.status, state.refusalBody)
        }
        if let head {
            if let error {
                head.resume(throwing: (error as? URLError)?.code == .cancelled ? CancellationError() : HTTPTransport.transportError(error))
            } else {
                // A redirect not followed may never have been handed to `didReceive`: the
                // task's response is the one it ended with.
                let response = task.response as? HTTPURLResponse
                let refused = HTTPResponse(
                    status: status == 0 ? response?.statusCode ?? 0 : status, headers: response.map(HTTPTransport.headers(of:)) ?? [:], body: body)
                head.resume(throwing: HTTPTransport.refusal(of: refused))
            }
        }
        if let error, (error as? URLError)?.code != .cancelled {
            chunkSink.finish(throwing: HTTPTransport.transportError(error))
        } else {
            chunkSink.finish()
        }
        session.finishTasksAndInvalidate()
    }
}
