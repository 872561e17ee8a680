/// The outcome of one statement of a pipeline.
public enum PGPipelineResult: Sendable {
    /// It ran: its rows, or its command tag and affected-row count.
    case rows(PGRows)
    /// It failed; the statements after it in the batch were not executed.
    case failed(PGError)
    /// An earlier statement of the batch failed, so the server skipped this one.
    case notExecuted

    /// The rows, or the statement's error (a client error for a statement not executed).
    public func get() throws -> PGRows {
        switch self {
        case .rows(let rows): return rows
        case .failed(let error): throw error
        case .notExecuted: throw PGError.client("the statement was not executed: an earlier statement of its pipeline failed")
        }
    }
}

extension Array where Element == PGPipelineResult {
    /// The statement that failed, with its position in the batch; nil when all ran.
    public var firstFailure: (index: Int, error: PGError)? {
        for (index, result) in enumerated() {
            if case .failed(let error) = result { return (index, error) }
        }
        return nil
    }
}

extension PGConnection {
    /// Sends every statement at once in libpq's pipeline mode and returns their results in
    /// order, after one round trip.
    ///
    /// The batch runs as one implicit transaction, as PostgreSQL defines pipelines: when a
    /// statement fails, the ones before it are rolled back with it (unless an explicit
    /// transaction is open, which is then aborted) and the ones after it are `.notExecuted`.
    /// Repeated statements use the statement cache, so a batch of one INSERT is parsed once.
    /// Connection-level failures throw; statement errors are in the results.
    public func pipeline(_ queries: [PGQuery], timeout: Duration? = nil) async throws -> [PGPipelineResult] {
        guard !queries.isEmpty else { return [] }
        for query in queries { try query.checkSendable() }
        return try await withExclusiveUse {
            try await self.runPipelines([queries], timeout: timeout, followsCancellation: true)[0]
        }
    }

    /// Runs several pipelines in one round trip, each its own implicit transaction (a sync
    /// point ends each): a statement failing in one aborts the rest of that one only. The
    /// caller has exclusive use of the connection and has checked the queries.
    ///
    /// With `followsCancellation`, cancelling the calling task cancels what runs on the
    /// server; a pool running other callers' pipelines turns that off, since the statement
    /// running when the cancel arrives could be anyone's.
    func runPipelines(
        _ pipelines: [[PGQuery]], timeout: Duration?, followsCancellation: Bool
    ) async throws -> [[PGPipelineResult]] {
        var steps: [PGPipelineStep] = []
        steps.reserveCapacity(pipelines.reduce(0) { $0 + $1.count + 1 })
        var positions: [[(prepare: Int?, execute: Int)]] = []
        positions.reserveCapacity(pipelines.count)
        for queries in pipelines {
            var batch: [(prepare: Int?, execute: Int)] = []
            batch.reserveCapacity(queries.count)
            for query in queries { batch.append(appendSteps(for: query, to: &steps)) }
            steps.append(.sync)
            positions.append(batch)
        }
        let outcomes = try await exchangeUpdatingCache(steps, timeout: timeout, followsCancellation: followsCancellation)
        // A statement prepared in one pipeline and executed again in a later one: when the
        // prepare failed, the later execution fails with "does not exist"; its real error is
        // the prepare's.
        var failedPrepares: [String: PGError] = [:]
        return positions.map { batch in
            batch.map { position in
                if let prepare = position.prepare, case .failure(let error) = outcomes[prepare] {
                    if case .prepare(let name) = steps[prepare].action { failedPrepares[name] = error }
                    return .failed(error)
                }
                switch outcomes[position.execute] {
                case .success(let rows): return .rows(rows)
                case .failure(let error):
                    if error.code == .invalidSQLStatementName, case .executePrepared(let name) = steps[position.execute].action,
                        let original = failedPrepares[name]
                    {
                        return .failed(original)
                    }
                    return .failed(error)
                case .aborted, .sync: return .notExecuted
                }
            }
        }
    }
}
