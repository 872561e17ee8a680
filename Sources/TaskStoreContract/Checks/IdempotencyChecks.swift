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
        },
        ContractCheck("a key whose request changed the store is never freed: a later failure, or abandoning it, leaves it taken effect") { f in
            let store = f.store
            let member = try await f.service.user(f.member).id
            let (first, other) = ([UInt8](repeating: 3, count: 32), [UInt8](repeating: 4, count: 32))
            let start = Date(timeIntervalSince1970: 1_800_000_000)
            func claim(_ key: String, _ fingerprint: [UInt8], after seconds: TimeInterval = 0) async throws -> IdempotencyClaim {
                try await store.claimIdempotencyKey(
                    key, of: member, fingerprint: fingerprint, at: start.addingTimeInterval(seconds), lifetime: 86_400, abandonedAfter: 900)
            }
            func running<T>(_ key: String, _ body: () async throws -> T) async throws -> T {
                try await IdempotentEffects.$key.withValue(IdempotentEffects.Key(user: member, key: key)) { try await body() }
            }
            // The request made a task, then failed (its answer lost): the key stays taken.
            #expect(try await claim("made", first) == .claimed)
            _ = try await running("made") { try await f.service.createTask(in: f.team, try TaskDraft(title: "Made once"), as: f.member) }
            #expect(try await claim("made", first, after: 1) == .running(fingerprint: first), "still running until it settles")
            try await store.settleIdempotencyKey("made", of: member, fingerprint: first, answer: nil, at: start)
            #expect(try await claim("made", first, after: 2) == .tookEffect(fingerprint: first))
            #expect(try await claim("made", other, after: 3) == .tookEffect(fingerprint: first), "the caller compares the fingerprint")
            // Abandoned after it took effect (its process stopped before settling): never claimed again.
            #expect(try await claim("left", first) == .claimed)
            _ = try await running("left") { try await f.service.createTask(in: f.team, try TaskDraft(title: "Left behind"), as: f.member) }
            #expect(try await claim("left", first, after: 899) == .running(fingerprint: first))
            #expect(try await claim("left", first, after: 902) == .tookEffect(fingerprint: first))
            // A request refused before it changed anything frees its key, and a read changes nothing.
            // (Postgres once kept it: the refused creation's statement inserted no row and
            // committed, and a statement trigger noted it all the same.)
            #expect(try await claim("refused", first) == .claimed)
            var stranger = TaskDraftFields()
            stranger.assignee = try await f.makeUser()
            await #expect(throws: TaskError.self) {
                try await running("refused") { try await f.service.createTask(in: f.team, try stranger.draft(title: "No"), as: f.member) }
            }
            _ = try await running("refused") { try await f.service.listTasks(in: f.team, as: f.member) }
            try await store.settleIdempotencyKey("refused", of: member, fingerprint: first, answer: nil, at: start)
            #expect(try await claim("refused", other, after: 1) == .claimed)
        },
    ]
}
