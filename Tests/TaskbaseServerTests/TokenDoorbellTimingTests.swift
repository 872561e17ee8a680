import APITokens
import Foundation
import PGStore
import TaskStorePG
import Synchronization
import TaskCore
@testable import TaskbaseServer
import TaskbaseTestSupport
import Testing

/// The token doorbell (`taskbase_tokens`) is rung by anyone holding the runtime login, as often
/// as they like: a ring may cost a lookup per distinct token watched, never one per stream, and
/// a flood of rings is paced without holding a real revocation back. A timing suite (run alone,
/// after the parallel ones): the revocation's delay is a wall-clock bound.
@Suite("The token doorbell against forged rings", .timeLimit(.minutes(3)))
struct TokenDoorbellTimingTests {
    static let secrets = TokenSecrets(key: "test key")

    /// A verifier over a PostgreSQL store of a database of its own (so that no other test's
    /// revocation rings its doorbell), counting its database lookups, with `count` users each
    /// holding one token.
    struct Rig: Sendable {
        let verifier: TokenVerifier
        let service: TaskService
        let database: PGConfig
        let secrets: [String]
        let tokens: [APIToken]
        let counted: Counter

        final class Counter: Sendable {
            let value = Mutex(0)
        }

        static func with(tokens count: Int, _ body: (Rig) async throws -> Void) async throws {
            try await TestDatabase.with(migrated: true, purpose: "token_doorbell") { database in
                let service = TaskService(store: try await PostgresTaskStore.open(config: database.config, maxConnections: 8))
                var secrets: [String] = [], tokens: [APIToken] = []
                for index in 0..<count {
                    let user = try await service.createUser(email: "ring.\(index)@example.com", displayName: "Ring \(index)")
                    let (secret, digest) = try TokenDoorbellTimingTests.secrets.generate()
                    tokens.append(try await service.createToken(for: .id(user.id), name: "ring", lifetime: 3_600, digest: digest))
                    secrets.append(secret)
                }
                let counted = Counter()
                let verifier = TokenVerifier(service: service, secrets: TokenDoorbellTimingTests.secrets) { counted.value.withLock { $0 += 1 } }
                verifier.start()
                do {
                    try await waitUntil("the invalidation doorbell to connect") { verifier.isCaching }
                    try await body(
                        Rig(verifier: verifier, service: service, database: database.config, secrets: secrets, tokens: tokens, counted: counted))
                } catch {
                    await verifier.stopAndWait()
                    throw error
                }
                await verifier.stopAndWait()
            }
        }

        /// Lookups of a token that was found, so far.
        var lookups: Int { counted.value.withLock { $0 } }

        /// Returns once every token was looked up (each watch checks its token as it starts: on a
        /// busy machine those checks may not have begun yet) and no lookup has been made for half
        /// a second since.
        func settled() async throws -> Int {
            try await waitUntil("each token's first lookup") { lookups >= tokens.count }
            var last = lookups
            for _ in 0..<40 {
                try await Task.sleep(for: .milliseconds(500))
                if lookups == last { return last }
                last = lookups
            }
            Issue.record("the lookups never settled")
            return last
        }
    }

    @Test("one forged ring costs one lookup per distinct token, however many streams watch them")
    func oneLookupPerTokenPerRing() async throws {
        try await Rig.with(tokens: 3) { rig in
            let watches = (0..<150).map { index in rig.verifier.watch(rig.secrets[index % 3]) {} }
            defer { for watch in watches { watch.cancel() } }
            let before = try await rig.settled()
            let generation = rig.verifier.generation
            try await RuntimeRoleSQL.asRuntimeLogin(rig.database) { connection in
                _ = try await connection.query(#"SELECT pg_notify('taskbase_tokens', '{"revoked": 1}')"#)
            }
            try await waitUntil("the forged ring to empty the cache") { rig.verifier.generation > generation }
            let after = try await rig.settled()
            #expect(after - before <= 3, "150 streams over 3 tokens: \(after - before) lookups for one ring")
        }
    }

    @Test("a flood of forged rings costs a bounded number of lookups, and a real revocation in it still cuts its streams at once")
    func floodIsPaced() async throws {
        try await Rig.with(tokens: 2) { rig in
            let cut = Rig.Counter()
            let watches = (0..<100).map { index in
                rig.verifier.watch(rig.secrets[index % 2]) { if index % 2 == 0 { cut.value.withLock { $0 += 1 } } }
            }
            defer { for watch in watches { watch.cancel() } }
            let before = try await rig.settled()
            let floodTime = Duration.seconds(3)
            let flood = Task { try await RuntimeRoleSQL.flood("taskbase_tokens", in: rig.database, for: floodTime) }
            try await Task.sleep(for: .seconds(1))
            let revoked = ContinuousClock.now
            _ = try await rig.service.revokeToken(rig.tokens[0].id)
            try await waitUntil("the revoked token's 50 streams to be cut") { cut.value.withLock { $0 } == 50 }
            let delay = ContinuousClock.now - revoked
            try await flood.value
            let during = rig.lookups - before
            #expect(delay < TokenVerifier.ringPace.spacing + .seconds(1), "the revocation took \(delay) to cut its streams")
            // Each ring acted on costs at most a lookup per token; rings are acted on as
            // `ringPace` allows: its burst at once, then one per spacing.
            let rings = TokenVerifier.ringPace.mostRings(in: floodTime + .seconds(1))
            #expect(during <= 2 * rings, "\(during) lookups in a \(floodTime) flood")
        }
    }
}
