import Foundation

/// API tokens: operators mint and revoke anyone's (`taskctl token`); users manage their own
/// over the API. Authentication turns a token's hash into its enabled user, or nothing.
extension TaskService {
    /// Makes a token for `user` living `lifetime` seconds (operators: `operator` must be an
    /// enabled one; nil is the database login's own rights).
    public func createToken(
        for user: UserRef, name: String, lifetime: TimeInterval, digest: TokenDigest, as operator: UserRef? = nil
    ) async throws -> APIToken {
        if let `operator` { try await requireOperator(`operator`) }
        let user = try await existingUser(user, as: `operator`)
        // Its token would not work, and the database refuses the row (0035).
        guard !user.isDisabled else {
            throw TaskError.validation(
                field: "email",
                reason: "\(user.email) is disabled, so a token for them would not work; enable the account first (taskctl user enable)")
        }
        return try await storeToken(of: user, name: name, lifetime: lifetime, digest: digest)
    }

    /// Makes a token for the acting user, who must be enabled.
    public func createOwnToken(name: String, lifetime: TimeInterval, digest: TokenDigest, as actor: UserRef) async throws -> APIToken {
        try await storeToken(of: try await enabledActor(actor), name: name, lifetime: lifetime, digest: digest)
    }

    /// Every token of `user`, newest first (operators, as for `createToken`).
    public func tokens(of user: UserRef, as operator: UserRef? = nil) async throws -> [APIToken] {
        if let `operator` { try await requireOperator(`operator`) }
        return try await store.tokens(of: try await existingUser(user, as: `operator`).id)
    }

    /// The acting user's tokens, newest first.
    public func ownTokens(as actor: UserRef) async throws -> [APIToken] {
        try await store.tokens(of: try await enabledActor(actor).id)
    }

    /// Revokes any token (operators, as for `createToken`); an unknown id is `notFound`.
    public func revokeToken(_ id: TokenID, as operator: UserRef? = nil) async throws -> APIToken {
        if let `operator` { try await requireOperator(`operator`) }
        return try await store.revokeToken(id, at: clock.now())
    }

    /// Revokes one of the acting user's tokens; anyone else's reads as not found.
    public func revokeOwnToken(_ id: TokenID, as actor: UserRef) async throws -> APIToken {
        let user = try await enabledActor(actor)
        guard let token = try await store.token(id), token.userID == user.id else { throw TaskError.notFound(what: "token #\(id)") }
        return try await store.revokeToken(id, at: clock.now())
    }

    /// The token whose secret hashes to `hash` and its user, when the token is active and the
    /// user enabled; nil otherwise (unknown, expired, revoked or disabled all look alike).
    public func authenticate(hash: [UInt8]) async throws -> (token: APIToken, user: User)? {
        guard let found = try await store.token(hash: hash), found.token.isActive(at: clock.now()), !found.user.isDisabled else { return nil }
        return found
    }

    /// Records that `token` was used now, at most once a minute.
    public func recordUse(of token: APIToken) async throws {
        let now = clock.now()
        if token.needsUseRecorded(at: now) { try await store.recordTokenUse(token.id, at: now) }
    }

    /// Signals each revocation and each user disabled or enabled, in any process.
    public func tokenInvalidations() async throws -> AsyncThrowingStream<Void, any Error> {
        try await store.tokenInvalidations()
    }

    private func storeToken(of user: User, name: String, lifetime: TimeInterval, digest: TokenDigest) async throws -> APIToken {
        let name = try TokenFields.name(name)
        guard lifetime >= TokenFields.minLifetime, lifetime <= TokenFields.maxLifetime else {
            throw TaskError.validation(field: "expires_in", reason: "a lifetime is from 1 minute to 2 years")
        }
        let now = clock.now()
        return try await store.createToken(of: user.id, name: name, digest: digest, expiresAt: now.addingTimeInterval(lifetime), at: now)
    }
}

/// Idempotency keys of the HTTP API, kept by the store so that every process sharing it knows
/// them (`IdempotencyRepository`).
extension TaskService {
    /// How long an answer is kept for its key.
    public static let idempotencyLifetime: TimeInterval = 86_400
    /// How long a claim with no answer and no renewal of its own stands before it is taken
    /// for abandoned: only claims written before migration 0036 (or by an older taskserve) have
    /// none; every other lapses by its lease (`IdempotencyLease`).
    public static let idempotencyAbandonedAfter: TimeInterval = 900

    /// Claims `key` of `user` for the request with `fingerprint`, now; a claim whose `lease`
    /// lapsed is taken for abandoned.
    public func claimIdempotencyKey(
        _ key: String, of user: UserID, fingerprint: [UInt8], lease: IdempotencyLease = .standard
    ) async throws -> IdempotencyClaim {
        try await store.claimIdempotencyKey(
            key, of: user, fingerprint: fingerprint, at: clock.now(), lifetime: Self.idempotencyLifetime, lapsesAfter: lease.lapsesAfter,
            abandonedAfter: Self.idempotencyAbandonedAfter)
    }

    /// Renews, now, the claim of `key` made at `claimedAt` while its request runs: false when
    /// it no longer stands (settled, or taken over).
    public func renewIdempotencyKey(_ key: String, of user: UserID, fingerprint: [UInt8], claimedAt: Date) async throws -> Bool {
        try await store.renewIdempotencyKey(key, of: user, fingerprint: fingerprint, claimedAt: claimedAt, at: clock.now())
    }

    /// Keeps the answer to the claim of `key` made at `claimedAt` (nil: forgets the claim).
    public func settleIdempotencyKey(_ key: String, of user: UserID, fingerprint: [UInt8], claimedAt: Date, answer: KeptAnswer?) async throws {
        try await store.settleIdempotencyKey(key, of: user, fingerprint: fingerprint, claimedAt: claimedAt, answer: answer, at: clock.now())
    }
}
