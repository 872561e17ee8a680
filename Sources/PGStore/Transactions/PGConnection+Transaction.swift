/// Transaction isolation levels PostgreSQL offers.
public enum PGIsolationLevel: String, Sendable {
    case readCommitted = "READ COMMITTED"
    case repeatableRead = "REPEATABLE READ"
    case serializable = "SERIALIZABLE"
}

extension PGConnection {
    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    /// A task cancelled meanwhile sends no further statement, COMMIT included: its next one
    /// throws `CancellationError` and the transaction is rolled back (the ROLLBACK is shielded
    /// from the cancellation, so it does go out).
    ///
    /// `settings` are applied with `set_config(name, value, true)` — `SET LOCAL`, the values
    /// sent as parameters — so they end with the transaction (safe behind PgBouncer in
    /// transaction mode). Called inside a transaction, it opens a savepoint instead.
    @discardableResult
    public func withTransaction<T>(
        isolation: PGIsolationLevel? = nil,
        readOnly: Bool = false,
        settings: [(name: String, value: String)] = [],
        _ body: (PGConnection) async throws -> T
    ) async throws -> T {
        if transactionDepth > 0 {
            return try await withSavepoint { connection in
                try await connection.applySettings(settings)
                return try await body(connection)
            }
        }
        var begin = "BEGIN"
        if let isolation { begin += " ISOLATION LEVEL \(isolation.rawValue)" }
        if readOnly { begin += " READ ONLY" }
        try await execute(PGQuery(unsafeSQL: begin))
        transactionDepth = 1
        defer { transactionDepth = 0 }
        let value: T
        do {
            try await applySettings(settings)
            value = try await body(self)
        } catch {
            await rollbackQuietly("ROLLBACK")
            throw error
        }
        do {
            // A task cancelled while its last statement ran (or after it) commits nothing: the
            // COMMIT is not sent (`beginExclusiveUse`), and the ROLLBACK below is.
            try await execute("COMMIT")
        } catch {
            await rollbackQuietly("ROLLBACK")
            throw error
        }
        return value
    }

    /// Convenience for settings written as a dictionary literal.
    @discardableResult
    public func withTransaction<T>(
        isolation: PGIsolationLevel? = nil,
        readOnly: Bool = false,
        settings: KeyValuePairs<String, String>,
        _ body: (PGConnection) async throws -> T
    ) async throws -> T {
        try await withTransaction(isolation: isolation, readOnly: readOnly, settings: settings.map { ($0.key, $0.value) }, body)
    }

    /// Runs `body` inside a savepoint of the current transaction: released when it returns,
    /// rolled back to (keeping the outer transaction's work) when it throws.
    @discardableResult
    public func withSavepoint<T>(_ body: (PGConnection) async throws -> T) async throws -> T {
        guard transactionDepth > 0 else {
            throw PGError.client("withSavepoint needs an open transaction (use withTransaction)")
        }
        let name = "pgstore_sp_\(transactionDepth)"
        try await execute(PGQuery(unsafeSQL: "SAVEPOINT \(name)"))
        transactionDepth += 1
        defer { transactionDepth -= 1 }
        do {
            let value = try await body(self)
            try await execute(PGQuery(unsafeSQL: "RELEASE SAVEPOINT \(name)"))
            return value
        } catch {
            await rollbackQuietly("ROLLBACK TO SAVEPOINT \(name)")
            throw error
        }
    }

    /// `SET LOCAL` for each setting, in one statement, values as parameters.
    func applySettings(_ settings: [(name: String, value: String)]) async throws {
        guard !settings.isEmpty else { return }
        var query = PGQuery(unsafeSQL: "SELECT ")
        for (index, setting) in settings.enumerated() {
            if index > 0 { query.append(unsafeSQL: ", ") }
            let name = query.bind(setting.name)
            let value = query.bind(setting.value)
            query.append(unsafeSQL: "set_config(\(name), \(value), true)")
        }
        try await execute(query)
    }

    /// Rolls back, shielded from the caller's cancellation; a failure here means the session
    /// is unusable, so the connection is closed.
    private func rollbackQuietly(_ statement: String) async {
        let done: Void? = try? await withCancellationShield { _ = try await self.execute(PGQuery(unsafeSQL: statement)) }
        if done == nil, transactionStatus != .idle { await close() }
    }
}
