import Foundation
import PGStore
import TaskCore

/// Idempotency keys in `idempotency_keys` (migrations 0029, 0030, 0036 and 0037), as the acting user, whose rows
/// alone row security shows.
extension PostgresTaskStore: IdempotencyRepository {
    public func claimIdempotencyKey(
        _ key: String, of user: UserID, fingerprint: [UInt8], at time: Date, lifetime: TimeInterval, lapsesAfter: TimeInterval,
        abandonedAfter: TimeInterval
    ) async throws -> IdempotencyClaim {
        // The user's keys past their lifetime go first: nothing else ever would, and every
        // POST of the Swift client sends a new one.
        let expired: PGQuery = "DELETE FROM idempotency_keys WHERE user_id = \(user.rawValue) AND claimed_at < \(time.addingTimeInterval(-lifetime))"
        // Whether a claim's request is gone: its lease lapsed (0036). A claim with no
        // renewal of its own (renewed_at null, or older than claimed_at: a taskserve older
        // than 0036 took the row over and left the last run's stamp) has no lease, and is
        // given the long bound instead.
        let lapsed: PGQuery = """
            CASE WHEN k.renewed_at >= k.claimed_at THEN k.renewed_at < \(time.addingTimeInterval(-lapsesAfter))
                 ELSE k.claimed_at < \(time.addingTimeInterval(-abandonedAfter)) END
            """
        // A standing claim is left alone (the insert waits for one being made elsewhere,
        // then finds it); an expired one is taken over, and an abandoned one unless its
        // request took effect (0030).
        let claim: PGQuery = """
            INSERT INTO idempotency_keys AS k (user_id, key, fingerprint, claimed_at, renewed_at)
            VALUES (\(user.rawValue), \(key), \(Data(fingerprint)), \(time), \(time))
            ON CONFLICT (user_id, key) DO UPDATE
               SET fingerprint = excluded.fingerprint, claimed_at = excluded.claimed_at, renewed_at = excluded.renewed_at,
                   answered_at = NULL, status = NULL, headers = NULL, body = NULL, took_effect_at = NULL, failed_at = NULL
             WHERE k.claimed_at < \(time.addingTimeInterval(-lifetime))
                OR (k.answered_at IS NULL AND k.took_effect_at IS NULL AND \(lapsed))
            RETURNING 1
            """
        // What stands when the insert claimed nothing. A statement of its own after the insert,
        // so under READ COMMITTED its snapshot, taken once the insert is done, sees a claim that
        // committed while the insert waited (one statement's snapshot would not). Sent whether
        // or not the insert claims, since its answer is not known before the round trip ends.
        let standing: PGQuery = """
            SELECT fingerprint, status, headers, body, failed_at IS NOT NULL OR (took_effect_at IS NOT NULL AND \(lapsed)) AS ended
              FROM idempotency_keys k WHERE user_id = \(user.rawValue) AND key = \(key)
            """
        // The three in one round trip, committed by the server on its own (`statements`): in a
        // transaction of several, a process paused between the insert and its COMMIT (SIGSTOP,
        // a stalled VM) would keep the key's row locked, and a retry elsewhere would wait on it
        // instead of being answered.
        let rows = try await statements(as: .id(user), [expired, claim, standing])
        if !rows[1].isEmpty { return .claimed(at: time) }
        guard let row = rows[2].first else { return .claimed(at: time) }
        let seen = [UInt8](try row.decode(Data.self, "fingerprint"))
        guard let status = try row.decode(Int32?.self, "status") else {
            return try row.decode(Bool.self, "ended") ? .tookEffect(fingerprint: seen) : .running(fingerprint: seen)
        }
        let answer = KeptAnswer(
            status: Int(status), headers: try row.decode([String]?.self, "headers") ?? [],
            body: try row.decode(Data?.self, "body").map { [UInt8]($0) })
        return .answered(fingerprint: seen, answer)
    }

    public func renewIdempotencyKey(_ key: String, of user: UserID, fingerprint: [UInt8], claimedAt: Date, at time: Date) async throws -> Bool {
        // Only the claim this run made, and only while it is unsettled: a settled claim, or one
        // another run took over (a new claimed_at), is never revived. One round trip, which the
        // server commits on its own: in a transaction of several, a process paused between the
        // update and its COMMIT (SIGSTOP, a stalled VM) would keep the key's row locked, and a
        // retry elsewhere could not take the lapsed claim over until that process went on.
        try await !statement(
            as: .id(user),
            """
            UPDATE idempotency_keys SET renewed_at = \(time)
             WHERE user_id = \(user.rawValue) AND key = \(key) AND fingerprint = \(Data(fingerprint)) AND claimed_at = \(claimedAt)
               AND answered_at IS NULL AND failed_at IS NULL
            RETURNING 1
            """
        ).isEmpty
    }

    public func settleIdempotencyKey(
        _ key: String, of user: UserID, fingerprint: [UInt8], claimedAt: Date, answer: KeptAnswer?, at time: Date
    ) async throws {
        // Only the claim this run made: a run whose claim was taken over (0037) neither
        // answers nor frees the retry's, though the request is the same.
        let mine: PGQuery = """
            user_id = \(user.rawValue) AND key = \(key) AND fingerprint = \(Data(fingerprint)) AND claimed_at = \(claimedAt) \
            AND answered_at IS NULL
            """
        let settle: PGQuery
        if let answer {
            settle = """
                UPDATE idempotency_keys
                   SET answered_at = \(time), status = \(Int32(answer.status)), headers = \(answer.headers), body = \(answer.body.map { Data($0) })
                 WHERE \(mine)
                """
        } else {
            // A failure frees the key, unless the request took effect: then it stands,
            // answered with nothing, so that no retry runs it again.
            settle = """
                WITH freed AS (DELETE FROM idempotency_keys WHERE \(mine) AND took_effect_at IS NULL RETURNING 1)
                UPDATE idempotency_keys SET failed_at = \(time) WHERE \(mine) AND took_effect_at IS NOT NULL
                """
        }
        // One statement in one round trip, which the server commits on its own, as a renewal:
        // a process paused mid-settle holds no lock on the key.
        _ = try await statement(as: .id(user), settle)
    }
}
