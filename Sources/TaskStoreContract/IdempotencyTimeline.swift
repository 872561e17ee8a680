import Foundation
import TaskCore

/// One user's idempotency keys claimed, renewed and settled on a timeline of seconds from a
/// fixed start, under a day's lifetime, a 30-second lease, and the quarter of an hour of claims
/// with no lease: the store's clock, injected, so no check sleeps.
public struct IdempotencyTimeline: Sendable {
    /// The store keeping the keys.
    public let store: any IdempotencyRepository
    /// Whose keys.
    public let user: UserID
    /// Second 0.
    public static let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// `user`'s keys in `store`.
    public init(_ store: any IdempotencyRepository, user: UserID) {
        self.store = store
        self.user = user
    }

    /// The time `seconds` after the start.
    public func at(_ seconds: TimeInterval) -> Date { Self.start.addingTimeInterval(seconds) }

    /// Claims `key` for a request with `fingerprint`, `seconds` after the start.
    public func claim(_ key: String, _ fingerprint: [UInt8], after seconds: TimeInterval = 0) async throws -> IdempotencyClaim {
        try await store.claimIdempotencyKey(
            key, of: user, fingerprint: fingerprint, at: at(seconds), lifetime: 86_400, lapsesAfter: 30, abandonedAfter: 900)
    }

    /// Renews, `seconds` after the start, the claim of `key` by `fingerprint` made at second `claimed`.
    public func renew(_ key: String, _ fingerprint: [UInt8], claimedAt claimed: TimeInterval, after seconds: TimeInterval) async throws -> Bool {
        try await store.renewIdempotencyKey(key, of: user, fingerprint: fingerprint, claimedAt: at(claimed), at: at(seconds))
    }

    /// Settles the claim of `key` by `fingerprint` made at second `claimed` with `answer` (nil:
    /// failed), at the start.
    public func settle(_ key: String, _ fingerprint: [UInt8], _ answer: KeptAnswer?, claimedAt claimed: TimeInterval = 0) async throws {
        try await store.settleIdempotencyKey(key, of: user, fingerprint: fingerprint, claimedAt: at(claimed), answer: answer, at: Self.start)
    }
}
