import Foundation
import TaskCore
import TaskbaseExport
import TaskbaseWire

/// `GET /v1/teams/{team}/export`: every task of the team as the CSV `POST …/imports` and
/// taskimport read (`taskctl export`'s, by the same code), streamed page by page so memory stays
/// flat whatever the team's size, every page read in one snapshot (the team as of the first
/// page, as `taskctl export` gives it). A snapshot holds a database connection until the client
/// has the whole file, so at most `APIOptions.maxExports` run at once; one more is 503 with
/// `Retry-After`. `defuse-formulas=true` starts cells beginning with `=`, `+`, `-` or `@` with
/// `'`, for spreadsheets. A read that fails half-way, a client that takes no bytes for
/// `exportPatience`, a token revoked meanwhile (checked after each page and at every ring of the
/// token doorbell), or a server stopping
/// past its grace cuts the connection off without the body's proper end, so a partial file
/// never looks complete.
extension APIHandlers {
    /// How long an export waits for its client to take a page before cutting it off.
    static let exportPatience: Duration = .seconds(30)
    func exportTasks(_ context: RouteContext) async throws -> HTTPResponse {
        let (team, actor) = (try teamKey(context), try context.actor)
        try context.refuseUndeclaredParameters()
        let defuses = try context.request.flag("defuse-formulas")
        // Refusals (404 to outsiders) are problems, answered before the stream begins.
        _ = try await service.team(team, as: actor)
        if let refusal = try Preconditions.streamRefusal(context.request) { return refusal }
        guard exports.enter() else {
            let detail =
                "\(exports.limit) exports are running on this server, the most it reads at once (--max-exports); retry after the Retry-After seconds"
            throw ServerProblems.Refusal.retryLater(ProblemDocument(.unavailable, detail: detail), seconds: 5)
        }
        let buffer = EventStreamBuffer(capacity: options.streamBufferBytes, resumable: false)
        // gzip as for other large GET answers, made as the file is written (a sync flush after
        // each page, so the client can unpack what it has).
        let gzipLevel = options.compression.flatMap { AcceptEncoding.takesGzip(context.request.header("accept-encoding")) ? $0.level : nil }
        let (service, exports, verifier, secret, pageSize) = (service, exports, verifier, context.tokenSecret, options.exportPageSize)
        // Told once the snapshot's transaction is open: until then a busy pool is a 503, after
        // it the download has begun.
        let (began, beginning) = AsyncThrowingStream<Void, any Error>.makeStream()
        // Pages (1,000 tasks by default) are read and written on the global executor, as long task pages
        // are (`loopPageLimit`): on the I/O thread each would hold up every other request. (An
        // unstructured task does not inherit the handler's preference; this says it outright.)
        let producer = Task(executorPreference: globalConcurrentExecutor) {
            defer { exports.leave() }
            do {
                try await service.withReadSnapshot { snapshot in
                    beginning.finish()
                    let gzip = gzipLevel.flatMap(Gzip.Stream.init(level:))
                    func queue(_ bytes: UnsafeRawBufferPointer) throws {
                        guard buffer.write(bytes: bytes) else { throw CancellationError() }
                    }
                    func queue(compressed packed: [UInt8]?) throws {
                        guard let packed else { throw ExportFailure.compression }
                        try packed.withUnsafeBytes(queue)
                    }
                    func send(_ bytes: UnsafeRawBufferPointer, flush: Bool = false) throws {
                        if let gzip { try queue(compressed: gzip.append(bytes, flush: flush)) } else { try queue(bytes) }
                    }
                    var export = TaskExport(service: snapshot, team: team, actor: actor, pageSize: pageSize)
                    export.csvConfiguration.defusesFormulas = defuses
                    _ = try await export.write(
                        as: .csv, to: { try send($0) },
                        afterPage: { _ in
                            if gzip != nil { try send(UnsafeRawBufferPointer(start: nil, count: 0), flush: true) }
                            guard await buffer.drain(patience: Self.exportPatience) else { throw CancellationError() }
                            // A token revoked during a long export ends it, as it ends an event stream.
                            guard await verifier.stillValid(secret) else { throw ExportFailure.tokenRevoked }
                        })
                    if let gzip { try queue(compressed: gzip.finish()) }
                }
                buffer.close()
            } catch {
                beginning.finish(throwing: error)
                buffer.abort()
            }
        }
        // No snapshot, no download: nothing was sent yet, so the failure is the answer (503
        // with Retry-After for a pool with no connection free).
        for try await _ in began {}
        // A revocation (any process's) cuts a download off at once, not only after its page:
        // a page waits up to `exportPatience` for a slow reader.
        let watch = verifier.watch(secret) { buffer.abort() }
        buffer.onTerminate {
            producer.cancel()
            watch.cancel()
        }
        var headers: [(name: String, value: String)] = [
            ("Content-Type", "text/csv; charset=utf-8"), ("Content-Disposition", "attachment; filename=\"\(team)-tasks.csv\""),
            ("Cache-Control", "no-store"),
        ]
        if options.compression != nil { headers.append(("Vary", "Accept-Encoding")) }
        if gzipLevel != nil { headers.append(("Content-Encoding", "gzip")) }
        return HTTPResponse(status: 200, headers: headers, body: .stream(buffer))
    }
}

/// Why an export stopped that is not the reader's doing.
enum ExportFailure: Error {
    /// zlib failed to compress.
    case compression
    /// The request's token was revoked (or its user disabled) while the export ran.
    case tokenRevoked
}
