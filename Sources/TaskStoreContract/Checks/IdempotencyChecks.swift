import Foundation
import TaskCore
import Testing

extension TaskStoreContract {
    static let idempotencyChecks: [ContractCheck] = [
        ContractCheck("an idempotency key is claimed once, per user; its answer is kept, a failure forgets it, and old claims are taken over") { f in
            let store = f.store
            let (owner, member) = (try await f.service.user(f.owner).id, try await f.service.user(f.member).id)
            let (first, other) = ([UInt8](repeating: 1, count: 32), [UInt8](repeating: 2, count: 32))
            let start = Date(timeIntervalSince1970: 1_800_000_000)
            func claim(_ key: String, _ user: UserID, _ fingerprint: [UInt8], after seconds: TimeInterval = 0) async throws -> IdempotencyClaim {
                try await store.claimIdempotencyKey(
                    key, of: user, fingerprint: fingerprint, at: start.addingTimeInterval(seconds), lifetime: 86_400, abandonedAfter: 900)
            }
            #expect(try await claim("k1", owner, first) == .claimed)
            #expect(try await claim("k1", owner, other) == .running(fingerprint: first), "running: the caller compares the fingerprint")
            #expect(try await claim("k1", member, other) == .claimed, "keys are per user")
            let answer = KeptAnswer(status: 201, headers: ["Location: /v1/tasks/CORE-1", "ETag: \"1\""], body: Array("{}".utf8))
            try await store.settleIdempotencyKey("k1", of: owner, fingerprint: first, answer: answer, at: start)
            #expect(try await claim("k1", owner, first, after: 3_600) == .answered(fingerprint: first, answer))
            // Another request's settlement changes nothing that is not its own.
            try await store.settleIdempotencyKey("k1", of: owner, fingerprint: other, answer: nil, at: start)
            #expect(try await claim("k1", owner, other, after: 60) == .answered(fingerprint: first, answer))
            // A day later the key is free again.
            #expect(try await claim("k1", owner, other, after: 86_401) == .claimed)
            // A failure forgets the claim: a corrected retry runs.
            #expect(try await claim("k2", owner, first) == .claimed)
            try await store.settleIdempotencyKey("k2", of: owner, fingerprint: first, answer: nil, at: start)
            #expect(try await claim("k2", owner, first, after: 1) == .claimed)
            // A claim never answered stands a quarter of an hour, then is taken for abandoned.
            #expect(try await claim("k2", owner, other, after: 899) == .running(fingerprint: first))
            #expect(try await claim("k2", owner, other, after: 902) == .claimed)
            // An answer kept without its body (it held a secret) says so.
            let secret = KeptAnswer(status: 201, headers: ["Location: /v1/me/tokens/7"], body: nil)
            try await store.settleIdempotencyKey("k2", of: owner, fingerprint: other, answer: secret, at: start)
            #expect(try await claim("k2", owner, other, after: 903) == .answered(fingerprint: other, secret))
        }
    ]
}
