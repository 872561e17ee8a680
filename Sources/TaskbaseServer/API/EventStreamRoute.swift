import Foundation
import TaskCore
import TaskbaseWire

/// `GET /v1/teams/{team}/events`: the team's changes as Server-Sent Events, each
/// `id: <team id>:<sequence>`, `event: change`, `data: <ChangeDocument on one line>`; a bulk change or a
/// resume point the log no longer holds comes as `event: resync` with `data: {"through": N}`;
/// `: keep-alive` comments keep idle streams alive and let dead clients be noticed.
/// Every stream of a team joins the process's one hub for that team (`TeamEventHub`): on each
/// ring of the team's doorbell the hub reads the log once, with the team's readers from the same
/// statement, describes and encodes each change once, and queues the same text for every
/// subscriber still among the readers. `Last-Event-ID` (or `?after=N`) resumes after that
/// sequence: the stream reads the log by itself up to where it joined the hub, then takes the
/// hub's events after that. The stream ends when the reader may no longer read the team (a
/// membership change rings the doorbell, and the hub's next read leaves them out), when its token
/// is revoked or its user disabled (checked again at every ring of the token doorbell, before an
/// event when one rang since, and at every heartbeat for expiry), when it falls more
/// than `streamBufferBytes` (or the hub's queue) behind, or when the server stops.
extension APIHandlers {
    func events(_ context: RouteContext) async throws -> HTTPResponse {
        let (team, actor) = (try teamKey(context), try context.actor)
        let caller = context.caller!
        let userID = caller.user.id
        let resume = try resumePoint(context.request)
        // The reader's own check, before it joins the hub (which then vouches for it at each
        // read), and the log's end: "from now on" means after what is committed before the response.
        let opened = try await service.changeLog(in: team, after: Int64.max, limit: 0, as: actor)
        let (now, teamID) = (opened.lastSequence, opened.teamID)
        await options.afterStreamOpened?()
        if let resume, let from = resume.team, from != teamID {
            // The team that event was in was deleted, and this one made under its key since.
            throw TaskError.notFound(what: "event \(resume) of team \(team) (its id names another team than \(team) is now, one deleted since)")
        }
        if let refusal = try Preconditions.streamRefusal(context.request) { return refusal }
        let after = resume?.sequence
        guard let place = streams.enter(userID) else {
            let detail =
                "\(streams.limit) event streams of yours are open on this server, the most one user may hold (--max-streams-per-user): close one, or retry after the Retry-After seconds"
            throw ServerProblems.Refusal.retryLater(ProblemDocument(.tooManyRequests, detail: detail), seconds: 5)
        }
        let (deliveries, leaveHub) = eventHubs.subscribe(team, user: userID)
        // The user's place is given back when the connection ends or the stream's task does,
        // whichever is first: the next stream of theirs is served as soon as this one is gone.
        let leave = {
            leaveHub()
            place.leave()
        }
        let buffer = EventStreamBuffer(capacity: options.streamBufferBytes)
        // The place the stream starts from, as an id with no data: a client that loses the
        // connection before its first event reconnects with it as Last-Event-ID and misses
        // nothing (EventSource keeps an id-only block's id, as the Swift client does).
        buffer.write(": connected\nid: \(EventID(team: teamID, sequence: after ?? now))\n\n")
        let service = service, heartbeat = options.heartbeat, verifier = verifier, patience = options.streamPatience
        let secret = context.tokenSecret
        // The token cache's generation when the stream's events begin; a ring since then has
        // the token checked before the next event goes out.
        let authenticated = verifier.generation
        let watch = verifier.watch(secret) { buffer.close() }
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
            defer {
                leave()
                beats.cancel()
                watch.cancel()
                buffer.close()
            }
            var queue = deliveries.makeAsyncIterator()
            // A hub of another team under the key (this one deleted meanwhile): the stream ends.
            guard case .joined(let joined, teamID)? = await queue.next() else { return }
            var position = after ?? now
            do {
                // Behind the hub, or past the log's end when the stream opened (a database
                // restored from an older copy, an id of another log): a resync through that end
                // first, then everything after it. Resumed from the client's point instead, a
                // change committed since the opening would be taken for one the client has.
                if position < joined || position > now {
                    position = try await catchUp(
                        team, teamID, from: min(position, now), resyncFirst: position > now, to: joined, buffer: buffer, service: service,
                        as: actor, patience: patience)
                }
            } catch {
                // A reader removed from the team, a lost database connection, or cancellation:
                // the stream ends and the client reconnects with Last-Event-ID.
                return
            }
            var checked = authenticated
            while let delivery = await queue.next() {
                guard case .event(let sequence, let text) = delivery, sequence > position else { continue }
                guard await verifier.stillValid(secret, of: caller, since: &checked) else { return }
                if await !buffer.send(text, patience: patience) { return }
                position = sequence
            }
        }
        buffer.onTerminate {
            place.leave()
            producer.cancel()
            beats.cancel()
            watch.cancel()
        }
        return HTTPResponse(
            status: 200,
            headers: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-store"), ("X-Accel-Buffering", "no"), ("Connection", "close")],
            body: .stream(buffer))
    }

    /// Sends what the log holds after `start` up to (at least) `joined`, read and described
    /// as this reader alone, after a resync through `start` when `resyncFirst`; returns the last
    /// sequence sent. A full page is followed by the next.
    private func catchUp(
        _ team: TeamKey, _ teamID: TeamID, from start: Int64, resyncFirst: Bool, to joined: Int64, buffer: EventStreamBuffer,
        service: TaskService, as actor: UserRef, patience: Duration
    ) async throws -> Int64 {
        var users = try await UserDirectory.of(team, service: service, as: actor)
        if resyncFirst {
            let text = try await EventText.of(.resync(through: start), team: teamID, users: &users, service: service, as: actor)
            guard await buffer.send(text, patience: patience) else { throw CancellationError() }
        }
        var position = start
        repeat {
            let page = try await service.changeLog(in: team, after: position, limit: ChangeLogFollower.pageSize, as: actor)
            guard page.teamID == teamID else { throw CancellationError() }
            for event in ChangeLogFollower.resumed(from: position, page) {
                let text = try await EventText.of(event, team: teamID, users: &users, service: service, as: actor)
                guard await buffer.send(text, patience: patience) else { throw CancellationError() }
                position = event.sequence
            }
            if page.events.count < ChangeLogFollower.pageSize { break }
        } while position < joined
        return position
    }

    /// Where to resume: after `Last-Event-ID`, else `?after=`, either an id as sent
    /// (`<team id>:<sequence>`) or a bare sequence; nil for "from now on". `?after=` takes the
    /// team's id too: a browser reopening a stream after a reload (EventSource cannot send
    /// `Last-Event-ID` on a first connection) passes the `lastEventId` it kept.
    func resumePoint(_ request: HTTPRequest) throws -> EventID? {
        let header = request.header("last-event-id")
        guard let text = (header ?? request.queryValue("after"))?.trimmingSpaces(), !text.isEmpty else { return nil }
        guard let id = EventID(text) else {
            throw TaskError.validation(
                field: header != nil ? "Last-Event-ID" : "after",
                reason: "\(text) is not an event id this stream sent (team id:sequence, or a sequence number)")
        }
        return id
    }
}
