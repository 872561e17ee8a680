import CLibPQ

extension PGConnection {
    /// Runs one statement: prepared through the statement cache when it applies (first use
    /// prepares and executes in one round trip), as the unnamed statement otherwise.
    func run(_ query: PGQuery, timeout: Duration?, retryStale: Bool = true) async throws -> PGRows {
        try query.checkSendable()
        // A statement found in the cache is cacheable: only a miss needs `isCacheable`.
        if let name = statementCache?.lookup(query) {
            try send(query, as: .executePrepared(name))
            do {
                return try await awaitSingleResult(timeout: timeout, sql: query.sql)
            } catch let error as PGError where error.meansStalePreparedStatement {
                forgetStatement(sql: query.sql, name: name, error: error)
                guard retryStale, transactionStatus == .idle else { throw error }
                return try await run(query, timeout: timeout, retryStale: false)
            }
        }
        guard statementCache != nil, PGStatementCache.isCacheable(query.sql) else {
            try send(query)
            return try await awaitSingleResult(timeout: timeout, sql: query.sql)
        }
        var steps: [PGPipelineStep] = []
        let positions = appendSteps(for: query, to: &steps)
        steps.append(.sync)
        let outcomes = try await exchangeUpdatingCache(steps, timeout: timeout)
        if let prepare = positions.prepare, case .failure(let error) = outcomes[prepare] { throw error }
        switch outcomes[positions.execute] {
        case .success(let rows): return rows
        case .failure(let error): throw error
        case .aborted, .sync: throw PGError.client("the server skipped the statement")
        }
    }

    /// Appends the steps that run `query` — prepare and execute the first time its text is seen,
    /// execute the prepared statement after that, or the unnamed statement when not cached.
    func appendSteps(for query: PGQuery, to steps: inout [PGPipelineStep]) -> (prepare: Int?, execute: Int) {
        // A statement found in the cache is cacheable: only a miss needs `isCacheable`.
        if let name = statementCache?.lookup(query) {
            steps.append(PGPipelineStep(action: .executePrepared(name), query: query))
            return (nil, steps.count - 1)
        }
        guard statementCache != nil, PGStatementCache.isCacheable(query.sql) else {
            steps.append(PGPipelineStep(action: .execute, query: query))
            return (nil, steps.count - 1)
        }
        if statementCache?.contains(sql: query.sql) == true {
            // Prepared with other parameter types: run this one unprepared.
            steps.append(PGPipelineStep(action: .execute, query: query))
            return (nil, steps.count - 1)
        }
        guard let name = statementCache?.insert(query) else { preconditionFailure("checked above") }
        steps.append(PGPipelineStep(action: .prepare(name), query: query))
        steps.append(PGPipelineStep(action: .executePrepared(name), query: query))
        return (steps.count - 2, steps.count - 1)
    }

    /// Runs `steps` in a pipeline, with the evicted statements' DEALLOCATEs in a segment of
    /// their own at the end, and brings the statement cache in line with what the server did.
    func exchangeUpdatingCache(
        _ steps: [PGPipelineStep], timeout: Duration?, followsCancellation: Bool = true
    ) async throws -> [PGPipelineOutcome] {
        var steps = steps
        let evicted = statementCache?.pendingDeallocations ?? []
        statementCache?.pendingDeallocations.removeAll()
        let deallocationStart = steps.count
        if !evicted.isEmpty {
            for name in evicted { steps.append(PGPipelineStep(action: .execute, query: PGQuery(unsafeSQL: "DEALLOCATE \(name)"))) }
            steps.append(.sync)
        }
        let outcomes = try await exchangePipelined(steps, timeout: timeout, followsCancellation: followsCancellation)
        for (index, name) in evicted.enumerated() {
            if case .failure(let error) = outcomes[deallocationStart + index], error.code != .invalidSQLStatementName {
                statementCache?.pendingDeallocations.append(name)
            } else if case .aborted = outcomes[deallocationStart + index] {
                statementCache?.pendingDeallocations.append(name)
            }
        }
        for (step, outcome) in zip(steps[..<deallocationStart], outcomes) {
            switch (step.action, outcome) {
            case (.prepare(let name), .failure), (.prepare(let name), .aborted):
                statementCache?.remove(sql: step.query.sql, name: name)
            case (.executePrepared(let name), .failure(let error)) where error.meansStalePreparedStatement:
                forgetStatement(sql: step.query.sql, name: name, error: error)
            default:
                break
            }
        }
        return Array(outcomes[..<deallocationStart])
    }

    /// Drops a statement the server no longer has, or whose plan no longer fits the table.
    private func forgetStatement(sql: String, name: String, error: PGError) {
        if error.code == .invalidSQLStatementName {
            statementCache?.remove(sql: sql, name: name)
        } else {
            statementCache?.invalidate(sql: sql, name: name)
        }
    }
}

extension PGError {
    /// The prepared statement is gone (DISCARD ALL, DEALLOCATE) or its cached plan no longer
    /// matches the table (a column added under `SELECT *`): prepare it again.
    var meansStalePreparedStatement: Bool {
        code == .invalidSQLStatementName
            || (code == .featureNotSupported && message.contains("cached plan must not change result type"))
    }
}
