import Foundation
import TaskCore
import TaskbaseWire

/// The team's change feed over `GET /v1/teams/{team}/events`: parses the events, rebuilds each
/// change, and when the connection drops or the server restarts, reconnects with
/// `Last-Event-ID` so the server resumes after the last event delivered.
struct EventFeed: Sendable {
    let client: TaskbaseClient
    let team: TeamKey

    /// Opens the first connection (its refusal, e.g. `notFound` for an outsider, is thrown
    /// here), then returns the stream; it ends when the consumer stops or a reconnect is refused.
    /// The opening is retried as a GET is (`openRetrying`).
    func open(after: Int64?) async throws -> TaskChangeStream {
        if let unreachable = client.transport.unreachable { throw unreachable }
        let first = try await openRetrying(lastEventID: after.map(String.init))
        let (stream, sink) = TaskChangeStream.makeStream()
        let reader = Task { await follow(first, into: sink) }
        sink.onTermination = { _ in reader.cancel() }
        return stream
    }

    /// `connect`, retried as the transport retries a GET: after a failed connection, a 503 or
    /// a 429 (its `Retry-After` honoured up to `requestTimeout`), up to `retries` times. A
    /// server restarting or busy when the feed is first opened is waited for, as a list read a
    /// moment later would be.
    private func openRetrying(lastEventID: String?) async throws -> StreamingConnection {
        let configuration = client.configuration
        var attempt = 0
        while true {
            let failure: any Error
            var serverSaid = Duration.zero
            do {
                return try await connect(lastEventID: lastEventID)
            } catch let unavailable as StreamingConnection.Unavailable {
                failure = unavailable.refusal
                serverSaid = HTTPTransport.retryAfter(of: unavailable.response)
            } catch let error as TaskbaseClientError {
                guard case .transport = error else { throw error }
                failure = error
            }
            attempt += 1
            guard attempt <= configuration.retries, let pause = configuration.pause(before: attempt, serverSaid: serverSaid) else {
                throw failure
            }
            try await Task.sleep(for: pause)
        }
    }

    private func connect(lastEventID: String?) async throws -> StreamingConnection {
        var request = HTTPRequest(method: "GET", path: ["v1", "teams", team.rawValue, "events"])
        request.headers["Accept"] = "text/event-stream"
        if let lastEventID, !lastEventID.isEmpty { request.headers["Last-Event-ID"] = lastEventID }
        return try await client.transport.authorized { token in
            let connection = StreamingConnection(client.transport.urlRequest(request, token: token, timeout: client.configuration.streamIdleTimeout))
            connection.lastEventID = lastEventID
            try await connection.open()
            return connection
        }
    }

    private func follow(_ first: StreamingConnection, into sink: TaskChangeStream.Continuation) async {
        var connection: StreamingConnection? = first
        // The place a reconnect resumes from: after the last event delivered to the consumer,
        // not the last one parsed, so an event whose delivery failed (and those parsed with it)
        // comes again.
        var delivered = first.lastEventID
        var parser = ServerSentEventParser(resumingAfter: delivered)
        var failures = 0
        // How long the server last asked to wait before reconnecting (a 503's or 429's
        // `Retry-After`): waited in full, whatever the backoff says.
        var serverSaid = Duration.zero
        while !Task.isCancelled {
            if let open = connection {
                do {
                    for try await chunk in open.chunks {
                        failures = 0
                        for (event, resumeFrom) in parser.feedResumable(chunk) {
                            // Lost in delivery, the event comes again after the place before it
                            // (an id sent on its own in the same chunk, such as the stream's start).
                            delivered = resumeFrom
                            try await deliver(event, to: sink)
                            delivered = event.id
                        }
                        // All delivered: the parser's place holds, with an id sent on its own
                        // (the stream's starting place) among it.
                        delivered = parser.lastEventID
                    }
                } catch let error where error is TaskError || error is TaskbaseClientError.Unreadable {
                    open.close()
                    sink.finish(throwing: (error as? TaskbaseClientError.Unreadable)?.error ?? error)
                    return
                } catch {
                }
                open.close()
                connection = nil
                parser = ServerSentEventParser(resumingAfter: delivered)
            }
            if Task.isCancelled { break }
            failures += 1
            do {
                try await Task.sleep(for: max(serverSaid, client.configuration.pause(before: failures)))
                serverSaid = .zero
                connection = try await connect(lastEventID: delivered)
            } catch is CancellationError {
                break
            } catch let unavailable as StreamingConnection.Unavailable {
                serverSaid = HTTPTransport.retryAfter(of: unavailable.response)
                continue
            } catch TaskError.notFound {
                // The stream was open, so the team was there: the watcher was removed from it
                // (or it was deleted), and the feed ends as the service's own feed ends.
                sink.finish(throwing: TaskError.watcherRemoved(from: team))
                return
            } catch let error as TaskbaseClientError {
                if case .transport = error { continue }
                if case .http(let status, _) = error, status >= 500 { continue }
                sink.finish(throwing: error)
                return
            } catch {
                sink.finish(throwing: error)
                return
            }
        }
        connection?.close()
        sink.finish()
    }

    private func deliver(_ event: ServerSentEvent, to sink: TaskChangeStream.Continuation) async throws {
        switch event.event {
        case "change":
            let document: ChangeDocument
            do {
                document = try WireJSON.makeDecoder().decode(ChangeDocument.self, from: Data(event.data.utf8))
            } catch {
                throw TaskbaseClientError.Unreadable(error: .invalidResponse("change event \(event.id): \(error)"))
            }
            do {
                if let id = document.actorID { await client.directory.learn([document.actor: UserID(id)]) }
                let ids = try await client.userIDs([document.actor], in: team)
                sink.yield(.change(try document.change(actorID: ids[document.actor]!)))
            } catch let error as TaskbaseClientError {
                if case .invalidResponse = error { throw TaskbaseClientError.Unreadable(error: error) }
                throw error
            }
        case "resync":
            guard let through = (try? WireJSON.makeDecoder().decode(ResyncData.self, from: Data(event.data.utf8)))?.through else {
                throw TaskbaseClientError.Unreadable(error: .invalidResponse("resync event \(event.id): \(event.data)"))
            }
            sink.yield(.resync(through: through))
        default:
            break
        }
    }
}

/// The `data:` of a `resync` event.
private struct ResyncData: Decodable {
    var through: Int64
}

extension ServerSentEventParser {
    /// A parser for a connection of a stream that resumes after `id` (none: from the start).
    init(resumingAfter id: String?) {
        self.init()
        if let id { resume(after: id) }
    }
}
