import Foundation
import TaskCore

/// One user's idempotency key.
struct IdempotencyKeyName: Hashable {
    var user: UserID
    var key: String
}

/// A claim of a key: by which request, when, and its answer once it has one.
struct IdempotencyKeyClaim {
    var fingerprint: [UInt8]
    var claimedAt: Date
    var answer: KeptAnswer?
}

extension MemoryTaskStore: IdempotencyRepository {
    /// The most keys kept; past it, those no longer standing go, then the oldest.
    static let idempotencyKeyCapacity = 10_000
    /// The most answer body bytes kept in all; past it, the oldest answers go.
    static let idempotencyKeptBytes = 64 << 20

    public func claimIdempotencyKey(
        _ key: String, of user: UserID, fingerprint: [UInt8], at time: Date, lifetime: TimeInterval, abandonedAfter: TimeInterval
    ) async throws -> IdempotencyClaim {
        state.withLock { state in
            let name = IdempotencyKeyName(user: user, key: key)
            func stands(_ claim: IdempotencyKeyClaim) -> Bool {
                claim.claimedAt >= time.addingTimeInterval(-lifetime)
                    && (claim.answer != nil || claim.claimedAt >= time.addingTimeInterval(-abandonedAfter))
            }
            if let claim = state.idempotencyKeys[name], stands(claim) {
                return claim.answer.map { .answered(fingerprint: claim.fingerprint, $0) } ?? .running(fingerprint: claim.fingerprint)
            }
            if state.idempotencyKeys.count >= Self.idempotencyKeyCapacity {
                state.idempotencyKeys = state.idempotencyKeys.filter { stands($0.value) }
                // The oldest answers go; a claim still running never does (its retry would run
                // again), so the keys may pass the capacity by the requests running at once.
                let oldest = state.idempotencyKeys.filter { $0.value.answer != nil }.sorted { $0.value.claimedAt < $1.value.claimedAt }
                for (stale, _) in oldest.prefix(max(0, state.idempotencyKeys.count - Self.idempotencyKeyCapacity + 1)) {
                    state.idempotencyKeys[stale] = nil
                }
            }
            state.idempotencyKeys[name] = IdempotencyKeyClaim(fingerprint: fingerprint, claimedAt: time)
            return .claimed
        }
    }

    public func settleIdempotencyKey(_ key: String, of user: UserID, fingerprint: [UInt8], answer: KeptAnswer?, at time: Date) async throws {
        state.withLock { state in
            let name = IdempotencyKeyName(user: user, key: key)
            guard let claim = state.idempotencyKeys[name], claim.fingerprint == fingerprint, claim.answer == nil else { return }
            state.idempotencyKeys[name] = answer.map { IdempotencyKeyClaim(fingerprint: fingerprint, claimedAt: claim.claimedAt, answer: $0) }
            var kept = state.idempotencyKeys.values.reduce(0) { $0 + ($1.answer?.body?.count ?? 0) }
            guard kept > Self.idempotencyKeptBytes else { return }
            for (old, claim) in state.idempotencyKeys.sorted(by: { $0.value.claimedAt < $1.value.claimedAt }) where kept > Self.idempotencyKeptBytes {
                guard old != name, let size = claim.answer?.body?.count else { continue }
                state.idempotencyKeys[old] = nil
                kept -= size
            }
        }
    }
}
