import CLibPQ

/// One protocol step libpq sends for a statement.
enum PGStatementAction: Sendable {
    /// Parse, bind and execute as the unnamed statement.
    case execute
    /// Parse into the named statement.
    case prepare(String)
    /// Bind and execute the named statement.
    case executePrepared(String)
    /// End of a pipeline segment: the server commits its implicit transaction and reports.
    case sync
}

/// A step of a pipeline and the query it carries (ignored for `.sync`).
struct PGPipelineStep {
    var action: PGStatementAction
    var query: PGQuery

    static let sync = PGPipelineStep(action: .sync, query: PGQuery(unsafeSQL: ""))
}

/// What the server answered to one pipeline step.
enum PGPipelineOutcome {
    /// Rows or a command tag.
    case success(PGRows)
    case failure(PGError)
    /// Skipped because an earlier step of its segment failed.
    case aborted
    /// The segment's sync point.
    case sync
}

/// Reads pipeline results as they become available, in step order.
private struct PipelineReader {
    /// Per step: its result, nil when aborted; a sync point's entry is nil too.
    var results: [PGResult?] = []
    var sent = 0
    private var awaitingEndOfStep = false

    init(capacity: Int) { results.reserveCapacity(capacity) }

    var isComplete: Bool { results.count == sent && !awaitingEndOfStep }

    /// Takes every result libpq can hand out without reading the socket.
    mutating func drain(_ handle: OpaquePointer) {
        while results.count < sent || awaitingEndOfStep {
            if PQisBusy(handle) != 0 { return }
            let raw = PQgetResult(handle)
            if awaitingEndOfStep {
                // Each statement's results end with a NULL.
                if let raw { PQclear(raw) }
                awaitingEndOfStep = false
                continue
            }
            guard let raw else { return }
            switch PQresultStatus(raw) {
            case PGRES_PIPELINE_SYNC:
                PQclear(raw)
                results.append(nil)
            case PGRES_PIPELINE_ABORTED:
                PQclear(raw)
                results.append(nil)
                awaitingEndOfStep = true
            default:
                results.append(PGResult(raw))
                awaitingEndOfStep = true
            }
        }
    }
}

extension PGConnection {
    /// Sends `steps` in libpq's pipeline mode and reads one outcome per step, in order.
    ///
    /// Writing and reading interleave: whenever the socket will not take more, the results that
    /// have arrived are read, so a large batch cannot deadlock on full socket buffers. A failure
    /// that leaves the pipeline in an unknown state closes the connection.
    func exchangePipelined(
        _ steps: [PGPipelineStep], timeout: Duration?, followsCancellation: Bool = true
    ) async throws -> [PGPipelineOutcome] {
        try ensureOpen()
        guard PQenterPipelineMode(handle) == 1 else { throw connectionError("could not enter pipeline mode") }
        let cancelState = CancelState()
        let deadline = timeout.map { ContinuousClock.now + $0 }
        var reader = PipelineReader(capacity: steps.count)
        func exchange() async throws {
            var unflushedBytes = 0
            for step in steps {
                try sendStep(step.query, as: step.action)
                reader.sent += 1
                unflushedBytes += step.query.sql.utf8.count + step.query.parameterByteCount + 32
                if unflushedBytes >= 65_536 {
                    unflushedBytes = 0
                    try await flushReading(&reader)
                }
            }
            try await flushReading(&reader)
            while true {
                reader.drain(handle)
                if reader.isComplete { break }
                try await waitUntilResultReady(deadline: deadline, cancelState: cancelState, followsCancellation: followsCancellation)
            }
        }
        do {
            if followsCancellation {
                try await withTaskCancellationHandler {
                    try await exchange()
                } onCancel: {
                    cancelHandle.cancel()
                }
            } else {
                try await exchange()
            }
        } catch {
            await close()
            throw error
        }
        guard PQexitPipelineMode(handle) == 1 else {
            let failure = connectionError("could not leave pipeline mode")
            await close()
            throw failure
        }
        return zip(steps, reader.results).map { step, result in
            if case .sync = step.action { return .sync }
            guard let result else { return .aborted }
            switch result.status {
            case PGRES_TUPLES_OK, PGRES_COMMAND_OK, PGRES_EMPTY_QUERY:
                return .success(PGRows(result: result))
            default:
                return .failure(
                    Self.error(
                        from: result, sql: step.query.sql, timedOut: cancelState.timeoutFired, timeout: timeout))
            }
        }
    }

    /// Flushes what libpq holds, reading results whenever the socket is full.
    private func flushReading(_ reader: inout PipelineReader) async throws {
        while true {
            let result = PQflush(handle)
            if result == 0 { return }
            if result < 0 { throw connectionError("could not send data to the server") }
            _ = await IOReactor.shared.wait(fd: PQsocket(handle), for: .readOrWrite, deadline: nil)
            if PQconsumeInput(handle) == 0 { throw connectionError("lost the connection while sending") }
            collectNotifications()
            reader.drain(handle)
        }
    }
}
