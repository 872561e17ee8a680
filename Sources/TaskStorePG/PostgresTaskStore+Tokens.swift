import Foundation
import PGStore
import TaskCore

extension PostgresTaskStore: TokenRepository {
    /// The channel the `api_tokens` and `users` triggers ring (migration 0010).
    static let tokenChannel = "taskbase_tokens"
    static let tokenColumns =
        "k.id AS token_id, k.user_id AS token_user_id, k.name AS token_name, k.prefix, k.created_at AS token_created_at, k.expires_at, k.last_used_at, k.revoked_at"

    /// The token in `row` (columns of `tokenColumns`).
    static func token(in row: PGRow) throws -> APIToken {
        APIToken(
            id: TokenID(try row.decode(Int64.self, "token_id")), userID: UserID(try row.decode(Int64.self, "token_user_id")),
            name: try row.decode(String.self, "token_name"), prefix: try row.decode(String.self, "prefix"),
            createdAt: try row.decode(Date.self, "token_created_at"), expiresAt: try row.decode(Date.self, "expires_at"),
            lastUsedAt: try row.decode(Date?.self, "last_used_at"), revokedAt: try row.decode(Date?.self, "revoked_at"))
    }

    /// Runs as the token's user, who may read their own row of `users` (migration 0009).
    public func createToken(of user: UserID, name: String, digest: TokenDigest, expiresAt: Date, at time: Date) async throws -> APIToken {
        try await transaction(as: .id(user)) { tx in
            let rows = try await tx.query(
                """
                INSERT INTO api_tokens AS k (user_id, name, prefix, hash, created_at, expires_at)
                SELECT u.id, \(name), \(digest.prefix), \(Data(digest.hash)), \(time), \(expiresAt) FROM users u WHERE u.id = \(user.rawValue)
                RETURNING \(unsafeSQL: Self.tokenColumns)
                """)
            guard let row = rows.first else { throw TaskError.unknownUser(.id(user)) }
            return try Self.token(in: row)
        }
    }

    public func tokens(of user: UserID) async throws -> [APIToken] {
        try await transaction(as: nil) { tx in
            try await tx.query(
                """
                SELECT \(unsafeSQL: Self.tokenColumns) FROM api_tokens k WHERE k.user_id = \(user.rawValue) ORDER BY k.created_at DESC, k.id DESC
                """
            ).map(Self.token(in:))
        }
    }

    public func token(_ id: TokenID) async throws -> APIToken? {
        try await transaction(as: nil) { tx in
            try await tx.query("SELECT \(unsafeSQL: Self.tokenColumns) FROM api_tokens k WHERE k.id = \(id.rawValue)").first.map(Self.token(in:))
        }
    }

    /// The token first (nobody is known yet, and `users` is readable only by an acting user,
    /// migration 0009), then its user, read as that user in the same transaction.
    public func token(hash: [UInt8]) async throws -> (token: APIToken, user: User)? {
        try await transaction(as: nil) { tx in
            let rows = try await tx.query("SELECT \(unsafeSQL: Self.tokenColumns) FROM api_tokens k WHERE k.hash = \(Data(hash))")
            guard let row = rows.first else { return nil }
            let token = try Self.token(in: row)
            _ = try await tx.query("SELECT set_config('taskbase.user_id', \(String(token.userID.rawValue)), true)")
            let users = try await tx.query("SELECT \(unsafeSQL: Self.userColumns) FROM users u WHERE u.id = \(token.userID.rawValue)")
            guard let user = try users.first.flatMap(Self.user(in:)) else { return nil }
            return (token, user)
        }
    }

    public func revokeToken(_ id: TokenID, at time: Date) async throws -> APIToken {
        try await transaction(as: nil) { tx in
            let rows = try await tx.query(
                """
                UPDATE api_tokens k SET revoked_at = coalesce(k.revoked_at, \(time)) WHERE k.id = \(id.rawValue)
                RETURNING \(unsafeSQL: Self.tokenColumns)
                """)
            guard let row = rows.first else { throw TaskError.notFound(what: "token #\(id)") }
            return try Self.token(in: row)
        }
    }

    public func recordTokenUse(_ id: TokenID, at time: Date) async throws {
        let cutoff = time.addingTimeInterval(-APIToken.useRecordingInterval)
        try await transaction(as: nil) { tx in
            try await tx.execute(
                """
                UPDATE api_tokens k SET last_used_at = \(time)
                 WHERE k.id = \(id.rawValue) AND (k.last_used_at IS NULL OR k.last_used_at <= \(cutoff))
                """)
        }
    }

    /// LISTENs on `taskbase_tokens`, closed when the consumer stops iterating. Rings coalesce
    /// while the consumer is busy: a flood of forged ones queues nothing.
    public func tokenInvalidations() async throws -> AsyncThrowingStream<Void, any Error> {
        let (rings, stop) = try await doorbell(on: Self.tokenChannel)
        return AsyncThrowingStream(bufferingPolicy: .bufferingNewest(1)) { continuation in
            let forward = Task {
                do {
                    for try await _ in rings { continuation.yield() }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
                await stop()
            }
            continuation.onTermination = { _ in forward.cancel() }
        }
    }
}
