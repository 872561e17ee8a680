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
            var steps: [PGPipelineStep] = []
            steps.reserveCapacity(queries.count + 1)
            var positions: [(prepare: Int?, execute: Int)] = []
            positions.reserveCapacity(queries.count)
            for query in queries { positions.append(self.appendSteps(for: query, to: &steps)) }
            steps.append(.sync)
            let outcomes = try await self.exchangeUpdatingCache(steps, timeout: timeout)
            return positions.map { position in
                if let prepare = position.prepare, case .failure(let error) = outcomes[prepare] { return .failed(error) }
                switch outcomes[position.execute] {
                case .success(let rows): return .rows(rows)
                case .failure(let error): return .failed(error)
                case .aborted, .sync: return .notExecuted
                }
            }
        }
    }
}
