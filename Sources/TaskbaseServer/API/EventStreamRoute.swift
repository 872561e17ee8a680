import Foundation
import TaskCore
import TaskbaseWire

/// `GET /v1/teams/{team}/events`: the team's changes as Server-Sent Events, each
/// `id: <sequence>`, `event: change`, `data: <ChangeDocument on one line>`; a bulk change or a
/// resume point the log no longer holds comes as `event: resync` with `data: {"through": N}`;
/// `: keep-alive` comments keep idle streams alive and let dead clients be noticed.
/// `Last-Event-ID` (or `?after=N`) resumes after that sequence. The stream ends when the reader
/// may no longer read the team (a membership change rings the team's doorbell, so the next read
/// is refused; the token and its user are checked again at every heartbeat, from the verifier's
/// cache), when it falls more than `streamBufferBytes` behind, or when the server stops.
/// Every stream's doorbell comes from the store's one listening session.
extension APIHandlers {
    func events(_ context: RouteContext) async throws -> HTTPResponse {
        let (team, actor) = (try teamKey(context), try context.actor)
        let after = try resumePoint(context.request)
        let members = try await UserDirectory.of(team, service: service, as: actor)
        let stream = try await service.changes(in: team, after: after, as: actor)
        let buffer = EventStreamBuffer(capacity: options.streamBufferBytes)
        buffer.write(": connected\n\n")
        let service = service, heartbeat = options.heartbeat, verifier = verifier, patience = options.streamPatience
        let secret = context.request.header("authorization").map { String($0.split(separator: " ", maxSplits: 1).last ?? "") } ?? ""
        let beats = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: heartbeat)
                if Task.isCancelled { break }
                if await !verifier.stillValid(secret) {
                    buffer.close()
                    break
                }
                // A stream with bytes waiting is alive enough; a comment would only add to them.
                if buffer.pendingBytes == 0, !buffer.write(": keep-alive\n\n") { break }
                if buffer.isClosed { break }
            }
        }
        let producer = Task {
            var directory = members
            defer {
                beats.cancel()
                buffer.close()
            }
            do {
                for try await event in stream {
                    let text: String
                    switch event {
                    case .change(let change):
                        let document = try await ChangeDocument.describing(change, users: &directory, service: service, as: actor)
                        let json = String(decoding: try ServerJSON.encoder.encode(document), as: UTF8.self)
                        text = "id: \(change.sequence)\nevent: change\ndata: \(json)\n\n"
                    case .resync(let through):
                        text = "id: \(through)\nevent: resync\ndata: {\"through\": \(through)}\n\n"
                    }
                    if await !buffer.send(text, patience: patience) { return }
                }
            } catch {
                // A reader removed from the team, a lost database connection, or cancellation:
                // the stream ends and the client reconnects with Last-Event-ID.
            }
        }
        buffer.onTerminate {
            producer.cancel()
            beats.cancel()
        }
        return HTTPResponse(
            status: 200,
            headers: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-store"), ("X-Accel-Buffering", "no"), ("Connection", "close")],
            body: .stream(buffer))
    }

    /// The sequence to resume after: `Last-Event-ID`, else `?after=`; nil for "from now on".
    func resumePoint(_ request: HTTPRequest) throws -> Int64? {
        let header = request.header("last-event-id")
        let text: String? = header ?? request.queryValue("after")
        let field = header != nil ? "Last-Event-ID" : "after"
        guard let text = text?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        guard let sequence = Int64(text), sequence >= 0 else {
            throw TaskError.validation(field: field, reason: "\(text) is not an event id this stream sent (a sequence number)")
        }
        return sequence
    }
}
