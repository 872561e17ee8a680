import Foundation
import TaskCore

/// One user's idempotency key.
struct IdempotencyKeyName: Hashable {
    var user: UserID
    var key: String
}

/// A claim of a key: by which request, when, when its request last renewed it, and its answer
/// once it has one.
struct IdempotencyKeyClaim {
    var fingerprint: [UInt8]
    var claimedAt: Date
    /// When its request last renewed it (or claimed it): its lease.
    var renewedAt: Date
    var answer: KeptAnswer?
    /// Whether its request changed the store (`IdempotentEffects`).
    var tookEffect = false
    /// Whether its request ended with no answer kept after it took effect.
    var failedAfterEffect = false

    /// Whether its request is over, with or without an answer.
    var isSettled: Bool { answer != nil || failedAfterEffect }
}

extension MemoryState {
    /// Refuses a write of a run whose claim of its idempotency key is no longer the key's: taken
    /// over by another run (a new claim time), or gone; as the database's trigger does
    /// (migration 0037). Called before the write changes anything (`MemoryTaskStore.writing`),
    /// so a refused write leaves the store as it was.
    func refuseWriteOfStaleIdempotentRun() throws {
        guard let running = IdempotentEffects.key else { return }
        guard idempotencyKeys[IdempotencyKeyName(user: running.user, key: running.key)]?.claimedAt == running.claimedAt else {
            throw IdempotencyClaimTakenOver(key: running.key)
        }
    }

    /// Notes on the running request's idempotency key, if it has one, that it changed the
    /// store: called by every write, as the database's triggers do (migration 0030).
    mutating func noteIdempotentEffect() {
        guard let running = IdempotentEffects.key else { return }
        let name = IdempotencyKeyName(user: running.user, key: running.key)
        guard var claim = idempotencyKeys[name], !claim.isSettled, !claim.tookEffect else { return }
        claim.tookEffect = true
        idempotencyKeys[name] = claim
    }
}

extension MemoryTaskStore: IdempotencyRepository {
    /// The most keys kept; past it, those no longer standing go, then the oldest.
    static let idempotencyKeyCapacity = 10_000
    /// The most answer body bytes kept in all; past it, the oldest answers go.
    static let idempotencyKeptBytes = 64 << 20

    /// Every claim here has its lease (`renewedAt`): `abandonedAfter`, the bound of claims
    /// written without one, applies to none.
    public func claimIdempotencyKey(
        _ key: String, of user: UserID, fingerprint: [UInt8], at time: Date, lifetime: TimeInterval, lapsesAfter: TimeInterval,
        abandonedAfter: TimeInterval
    ) async throws -> IdempotencyClaim {
        state.withLock { state in
            let name = IdempotencyKeyName(user: user, key: key)
            func lapsed(_ claim: IdempotencyKeyClaim) -> Bool { claim.renewedAt < time.addingTimeInterval(-lapsesAfter) }
            func stands(_ claim: IdempotencyKeyClaim) -> Bool {
                claim.claimedAt >= time.addingTimeInterval(-lifetime) && (claim.isSettled || claim.tookEffect || !lapsed(claim))
            }
            if let claim = state.idempotencyKeys[name], stands(claim) {
                if let answer = claim.answer { return .answered(fingerprint: claim.fingerprint, answer) }
                let ended = claim.failedAfterEffect || (claim.tookEffect && lapsed(claim))
                return ended ? .tookEffect(fingerprint: claim.fingerprint) : .running(fingerprint: claim.fingerprint)
            }
            if state.idempotencyKeys.count >= Self.idempotencyKeyCapacity {
                state.idempotencyKeys = state.idempotencyKeys.filter { stands($0.value) }
                // The oldest answers go; a claim still running never does (its retry would run
                // again), so the keys may pass the capacity by the requests running at once.
                let oldest = state.idempotencyKeys.filter { $0.value.isSettled }.sorted { $0.value.claimedAt < $1.value.claimedAt }
                for (stale, _) in oldest.prefix(max(0, state.idempotencyKeys.count - Self.idempotencyKeyCapacity + 1)) {
                    state.idempotencyKeys[stale] = nil
                }
            }
            state.idempotencyKeys[name] = IdempotencyKeyClaim(fingerprint: fingerprint, claimedAt: time, renewedAt: time)
            return .claimed(at: time)
        }
    }

    public func renewIdempotencyKey(_ key: String, of user: UserID, fingerprint: [UInt8], claimedAt: Date, at time: Date) async throws -> Bool {
        state.withLock { state in
            // Only the claim this run made, unsettled: never one settled or taken over.
            let name = IdempotencyKeyName(user: user, key: key)
            guard var claim = state.idempotencyKeys[name], claim.fingerprint == fingerprint, claim.claimedAt == claimedAt, !claim.isSettled
            else { return false }
            claim.renewedAt = time
            state.idempotencyKeys[name] = claim
            return true
        }
    }

    public func settleIdempotencyKey(
        _ key: String, of user: UserID, fingerprint: [UInt8], claimedAt: Date, answer: KeptAnswer?, at time: Date
    ) async throws {
        state.withLock { state in
            // Only the claim this run made: never one another run took over.
            let name = IdempotencyKeyName(user: user, key: key)
            guard var claim = state.idempotencyKeys[name], claim.fingerprint == fingerprint, claim.claimedAt == claimedAt, !claim.isSettled
            else { return }
            // A failure frees the key, unless the request took effect: then no retry may run it.
            guard let answer else {
                claim.failedAfterEffect = true
                state.idempotencyKeys[name] = claim.tookEffect ? claim : nil
                return
            }
            claim.answer = answer
            state.idempotencyKeys[name] = claim
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
