import PGStore

/// SQL typed as the runtime role, the way someone holding the app's database login would type
/// it: for the tests that hold row security and the triggers to the role model.
public enum RuntimeRoleSQL {
    /// Runs `body` on `connection` (a login that is only a member of `taskbase_app`) inside a
    /// transaction, begun here and left open, as the runtime role acting as `actor`, with
    /// `isolation`.
    public static func asRuntime<T>(
        _ connection: PGConnection, actor: Int64, isolation: String = "READ COMMITTED", _ body: () async throws -> T
    ) async throws -> T {
        _ = try await connection.simpleQuery(unsafeSQL: "BEGIN ISOLATION LEVEL \(isolation); SET LOCAL ROLE taskbase_app")
        _ = try await connection.query("SELECT set_config('taskbase.user_id', \(String(actor)), true)")
        return try await body()
    }

    /// The error `statements` raise, run in order as the runtime role acting as `actor` in a
    /// transaction rolled back afterwards; nil when every one ran. With `committing`, the
    /// transaction is committed instead, so that checks deferred to the commit judge it too.
    public static func refusal(
        of statements: [PGQuery], as actor: Int64, on connection: PGConnection, committing: Bool = false
    ) async throws -> PGError? {
        let refused: PGError? = try await asRuntime(connection, actor: actor) {
            do {
                for statement in statements { _ = try await connection.execute(statement) }
                if committing { _ = try await connection.simpleQuery(unsafeSQL: "COMMIT") }
                return nil
            } catch let error as PGError {
                return error
            }
        }
        // After a commit, or a failed one, no transaction is left: PostgreSQL only warns.
        _ = try await connection.simpleQuery(unsafeSQL: "ROLLBACK")
        return refused
    }

    /// Runs `body` on a session of a new login granted only the runtime role, to `database`:
    /// what a stolen password gives (it may NOTIFY and LISTEN on any channel).
    public static func asRuntimeLogin<T>(_ database: PGConfig, _ body: (PGConnection) async throws -> T) async throws -> T {
        try await TestLogin.with(memberOf: ["taskbase_app"]) { login in
            try await PGConnection.with(login.config(for: database)) { connection in try await body(connection) }
        }
    }

    /// Notifies `channel` for `duration`: a batch of 100 notifications with payloads of their own
    /// (PostgreSQL folds identical ones sent in one transaction into one) every 5 ms, at most
    /// 2,000 batches. A ring every 5 ms is ten times what any doorbell here acts on, and the
    /// pause keeps the flood from taking a whole core from the tests running beside it.
    public static func flood(_ channel: String, in database: PGConfig, for duration: Duration) async throws {
        try await asRuntimeLogin(database) { connection in
            let end = ContinuousClock.now + duration
            for _ in 0..<2_000 {
                guard ContinuousClock.now < end else { break }
                _ = try await connection.query("SELECT pg_notify(\(channel), g::text) FROM generate_series(1, 100) g")
                try await Task.sleep(for: .milliseconds(5))
            }
        }
    }
}
