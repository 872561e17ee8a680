import Foundation

/// API tokens: made for a user, found by the keyed hash of their secret, revoked. The
/// store holds hashes only; the rules (who may mint or revoke, expiry, disabled users) are
/// `TaskService`'s.
public protocol TokenRepository: Sendable {
    /// Stores a new token of `user`; a hash already stored is `alreadyExists`.
    func createToken(of user: UserID, name: String, digest: TokenDigest, expiresAt: Date, at time: Date) async throws -> APIToken
    /// The user's tokens, newest first, revoked and expired ones included.
    func tokens(of user: UserID) async throws -> [APIToken]
    /// The token with this id, or nil.
    func token(_ id: TokenID) async throws -> APIToken?
    /// The token whose secret hashes to `hash`, with its user; nil when none does.
    func token(hash: [UInt8]) async throws -> (token: APIToken, user: User)?
    /// Marks the token revoked at `time` (a revoked one keeps its first time); `notFound` when
    /// no token has this id.
    func revokeToken(_ id: TokenID, at time: Date) async throws -> APIToken
    /// Records a use at `time` unless one was recorded less than a minute before.
    func recordTokenUse(_ id: TokenID, at time: Date) async throws
    /// A signal each time a token is revoked or a user is disabled or re-enabled, by any process
    /// sharing the store: caches of verified tokens drop what they hold. Signals coalesce while
    /// the consumer is busy (it keeps the newest only), so a slow consumer sees no backlog.
    func tokenInvalidations() async throws -> AsyncThrowingStream<Void, any Error>
}
