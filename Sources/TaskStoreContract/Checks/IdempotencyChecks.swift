import Foundation
import TaskCore
import Testing

extension TaskStoreContract {
    static let idempotencyChecks: [ContractCheck] = [
        ContractCheck("an idempotency key is claimed once, per user; its answer is kept, a failure forgets it, and old claims are taken over") { f in
            let owner = IdempotencyTimeline(f.store, user: try await f.service.user(f.owner).id)
            let member = IdempotencyTimeline(f.store, user: try await f.service.user(f.member).id)
            let (first, other) = ([UInt8](repeating: 1, count: 32), [UInt8](repeating: 2, count: 32))
            #expect(try await owner.claim("k1", first) == .claimed(at: owner.at(0)))
            #expect(try await owner.claim("k1", other) == .running(fingerprint: first), "running: the caller compares the fingerprint")
            #expect(try await member.claim("k1", other) == .claimed(at: member.at(0)), "keys are per user")
            let answer = KeptAnswer(status: 201, headers: ["Location: /v1/tasks/CORE-1", "ETag: \"1\""], body: Array("{}".utf8))
            try await owner.settle("k1", first, answer)
            #expect(try await owner.claim("k1", first, after: 3_600) == .answered(fingerprint: first, answer))
            // Another request's settlement changes nothing that is not its own.
            try await owner.settle("k1", other, nil)
            #expect(try await owner.claim("k1", other, after: 60) == .answered(fingerprint: first, answer))
            // A day later the key is free again.
            #expect(try await owner.claim("k1", other, after: 86_401) == .claimed(at: owner.at(86_401)))
            // A failure forgets the claim: a corrected retry runs.
            #expect(try await owner.claim("k2", first) == .claimed(at: owner.at(0)))
            try await owner.settle("k2", first, nil)
            #expect(try await owner.claim("k2", first, after: 1) == .claimed(at: owner.at(1)))
            // A claim never answered nor renewed stands for its lease, then is taken for abandoned.
            #expect(try await owner.claim("k2", other, after: 30) == .running(fingerprint: first))
            #expect(try await owner.claim("k2", other, after: 32) == .claimed(at: owner.at(32)))
            // An answer kept without its body (it held a secret) says so.
            let secret = KeptAnswer(status: 201, headers: ["Location: /v1/me/tokens/7"], body: nil)
            try await owner.settle("k2", other, secret, claimedAt: 32)
            #expect(try await owner.claim("k2", other, after: 903) == .answered(fingerprint: other, secret))
        },
        ContractCheck("a key whose request changed the store is never freed: a later failure, or abandoning it, leaves it taken effect") { f in
            let member = IdempotencyTimeline(f.store, user: try await f.service.user(f.member).id)
            let (first, other) = ([UInt8](repeating: 3, count: 32), [UInt8](repeating: 4, count: 32))
            // The request made a task, then failed (its answer lost): the key stays taken.
            #expect(try await member.claim("made", first) == .claimed(at: member.at(0)))
            try await f.runningKeyed("made") { _ = try await f.service.createTask(in: f.team, try TaskDraft(title: "Made once"), as: f.member) }
            #expect(try await member.claim("made", first, after: 1) == .running(fingerprint: first), "still running until it settles")
            try await member.settle("made", first, nil)
            #expect(try await member.claim("made", first, after: 2) == .tookEffect(fingerprint: first))
            #expect(try await member.claim("made", other, after: 3) == .tookEffect(fingerprint: first), "the caller compares the fingerprint")
            // Abandoned after it took effect (its process stopped before settling, its lease
            // lapsed): never claimed again.
            #expect(try await member.claim("left", first) == .claimed(at: member.at(0)))
            try await f.runningKeyed("left") { _ = try await f.service.createTask(in: f.team, try TaskDraft(title: "Left behind"), as: f.member) }
            #expect(try await member.claim("left", first, after: 29) == .running(fingerprint: first))
            #expect(try await member.claim("left", first, after: 31) == .tookEffect(fingerprint: first))
            // A request refused before it changed anything frees its key, and a read changes nothing.
            // (Postgres once kept it: the refused creation's statement inserted no row and
            // committed, and a statement trigger noted it all the same.)
            #expect(try await member.claim("refused", first) == .claimed(at: member.at(0)))
            var stranger = TaskDraftFields()
            stranger.assignee = try await f.makeUser()
            await #expect(throws: TaskError.self) {
                try await f.runningKeyed("refused") { _ = try await f.service.createTask(in: f.team, try stranger.draft(title: "No"), as: f.member) }
            }
            try await f.runningKeyed("refused") { _ = try await f.service.listTasks(in: f.team, as: f.member) }
            try await member.settle("refused", first, nil)
            #expect(try await member.claim("refused", other, after: 1) == .claimed(at: member.at(1)))
        },
        ContractCheck("a renewed claim runs past its lease, one no longer renewed lapses, and a settled or taken-over claim is never renewed") {
            f in
            let member = IdempotencyTimeline(f.store, user: try await f.service.user(f.member).id)
            let (first, other) = ([UInt8](repeating: 5, count: 32), [UInt8](repeating: 6, count: 32))
            // Renewed every 25 s, a claim stands long past its 30 s: its lease runs from its last renewal.
            #expect(try await member.claim("long", first) == .claimed(at: member.at(0)))
            for seconds in stride(from: 25.0, through: 75, by: 25) {
                #expect(try await member.renew("long", first, claimedAt: 0, after: seconds))
                #expect(try await member.claim("long", other, after: seconds + 25) == .running(fingerprint: first))
            }
            // Its renewals stopped (its server was killed): 30 s after the last, a retry takes it over.
            #expect(try await member.claim("long", other, after: 104) == .running(fingerprint: first))
            #expect(try await member.claim("long", first, after: 106) == .claimed(at: member.at(106)))
            // The first run, were it still going, renews nothing of the retry's claim, though
            // the request is the same: that claim lapses by its own lease.
            #expect(try await !member.renew("long", first, claimedAt: 0, after: 120))
            #expect(try await member.claim("long", other, after: 137) == .claimed(at: member.at(137)))
            // Settled claims are never renewed: one answered, one failed before any effect
            // (forgotten), one failed after its effect.
            let answer = KeptAnswer(status: 201, headers: [], body: Array("{}".utf8))
            #expect(try await member.claim("answered", first) == .claimed(at: member.at(0)))
            try await member.settle("answered", first, answer)
            #expect(try await !member.renew("answered", first, claimedAt: 0, after: 2))
            #expect(try await member.claim("answered", first, after: 3_600) == .answered(fingerprint: first, answer))
            #expect(try await member.claim("failed", first) == .claimed(at: member.at(0)))
            try await member.settle("failed", first, nil)
            #expect(try await !member.renew("failed", first, claimedAt: 0, after: 2))
            #expect(try await member.claim("failed", other, after: 3) == .claimed(at: member.at(3)), "the renewal made no claim again")
            #expect(try await member.claim("lost", first) == .claimed(at: member.at(0)))
            try await f.runningKeyed("lost") { _ = try await f.service.createTask(in: f.team, try TaskDraft(title: "Answer lost"), as: f.member) }
            try await member.settle("lost", first, nil)
            #expect(try await !member.renew("lost", first, claimedAt: 0, after: 2))
            #expect(try await member.claim("lost", first, after: 3) == .tookEffect(fingerprint: first))
            // A claim whose request took effect: renewed, it runs; its renewals stopped, it
            // lapses into its answer lost.
            #expect(try await member.claim("made", first) == .claimed(at: member.at(0)))
            try await f.runningKeyed("made") {
                _ = try await f.service.createTask(in: f.team, try TaskDraft(title: "Made under a lease"), as: f.member)
            }
            #expect(try await member.renew("made", first, claimedAt: 0, after: 25))
            #expect(try await member.claim("made", first, after: 50) == .running(fingerprint: first))
            #expect(try await member.claim("made", first, after: 56) == .tookEffect(fingerprint: first))
        },
        ContractCheck("a run whose claim was taken over writes nothing and settles nothing; the run holding the claim writes") { f in
            let member = IdempotencyTimeline(f.store, user: try await f.service.user(f.member).id)
            let fingerprint = [UInt8](repeating: 7, count: 32)
            let kept = try await f.service.createTask(in: f.team, try TaskDraft(title: "Kept as it is"), as: f.member)
            // The first run's renewals stopped before it wrote (its process paused, its pool
            // starved), and a retry took its claim over; then the first run went on.
            #expect(try await member.claim("paused", fingerprint) == .claimed(at: member.at(0)))
            #expect(try await member.claim("paused", fingerprint, after: 31) == .claimed(at: member.at(31)))
            let before = try await f.service.listTasks(in: f.team, as: f.member)
            await #expect(throws: IdempotencyClaimTakenOver(key: "paused")) {
                try await f.runningKeyed("paused", claimedAt: member.at(0)) {
                    _ = try await f.service.createTask(in: f.team, try TaskDraft(title: "Made twice"), as: f.member)
                }
            }
            await #expect(throws: IdempotencyClaimTakenOver(key: "paused")) {
                try await f.runningKeyed("paused", claimedAt: member.at(0)) {
                    _ = try await f.service.updateTask(kept.key, try TaskChanges(title: "Changed twice"), expectedVersion: nil, as: f.member)
                }
            }
            #expect(try await f.service.listTasks(in: f.team, as: f.member) == before, "the refused writes left nothing")
            // Nor does it settle the retry's claim, answered or failed: the request is the same,
            // the claim is not.
            try await member.settle("paused", fingerprint, KeptAnswer(status: 201, headers: [], body: Array("{}".utf8)))
            try await member.settle("paused", fingerprint, nil)
            #expect(try await member.claim("paused", fingerprint, after: 32) == .running(fingerprint: fingerprint))
            // The retry, holding the claim, writes, and its effect is noted on its claim.
            try await f.runningKeyed("paused", claimedAt: member.at(31)) {
                _ = try await f.service.createTask(in: f.team, try TaskDraft(title: "Made once"), as: f.member)
            }
            #expect(try await f.service.listTasks(in: f.team, as: f.member).tasks.map(\.title) == before.tasks.map(\.title) + ["Made once"])
            try await member.settle("paused", fingerprint, nil, claimedAt: 31)
            #expect(try await member.claim("paused", fingerprint, after: 33) == .tookEffect(fingerprint: fingerprint))
            // A run whose claim is gone (failed and forgotten, or past its lifetime) writes nothing either.
            #expect(try await member.claim("gone", fingerprint) == .claimed(at: member.at(0)))
            try await member.settle("gone", fingerprint, nil)
            await #expect(throws: IdempotencyClaimTakenOver(key: "gone")) {
                try await f.runningKeyed("gone", claimedAt: member.at(0)) {
                    _ = try await f.service.createTask(in: f.team, try TaskDraft(title: "Made unclaimed"), as: f.member)
                }
            }
            #expect(try await f.service.listTasks(in: f.team, as: f.member).tasks.count == before.tasks.count + 1)
        },
    ]
}

extension ContractFixture {
    /// Runs `body` as the request holding the member's idempotency key `key` by the claim made
    /// at `claimedAt` (the timeline's second 0 unless told): what it writes notes on the key
    /// that it took effect, or is refused if the claim is no longer the key's.
    func runningKeyed(_ key: String, claimedAt: Date = IdempotencyTimeline.start, _ body: () async throws -> Void) async throws {
        let member = try await service.user(self.member).id
        try await IdempotentEffects.$key.withValue(IdempotentEffects.Key(user: member, key: key, claimedAt: claimedAt)) { try await body() }
    }
}
