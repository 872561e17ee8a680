import APITokens
import Foundation
import TaskCore
import TaskStorePG
@testable import TaskbaseServer
import TaskbaseTestSupport
import TaskbaseWire
import Testing

@Suite("Rate limits per user")
struct RateLimitTests {
    static let alice = UserID(1), bob = UserID(2)

    @Test("a bucket allows its whole allowance at once, then refuses with the seconds until the next request")
    func burstThenRefusal() {
        let limiter = RateLimiter<UserID>(RateLimit(requests: 3, per: .seconds(60)))
        let now = ContinuousClock.now
        #expect(limiter.admit(Self.alice, now: now) == .admitted(remaining: 2))
        #expect(limiter.admit(Self.alice, now: now) == .admitted(remaining: 1))
        #expect(limiter.admit(Self.alice, now: now) == .admitted(remaining: 0))
        // One request comes back every 20 s.
        #expect(limiter.admit(Self.alice, now: now) == .refused(retryAfter: 20))
        #expect(limiter.admit(Self.alice, now: now + .seconds(15)) == .refused(retryAfter: 5))
        #expect(limiter.admit(Self.bob, now: now) == .admitted(remaining: 2), "another user has an allowance of their own")
    }

    @Test("the bucket refills at the limit's rate, never past the allowance")
    func refill() {
        let limiter = RateLimiter<UserID>(RateLimit(requests: 10, per: .seconds(1)))
        let now = ContinuousClock.now
        for _ in 0..<10 { _ = limiter.admit(Self.alice, now: now) }
        #expect(limiter.admit(Self.alice, now: now) == .refused(retryAfter: 1))
        #expect(limiter.admit(Self.alice, now: now + .milliseconds(350)) == .admitted(remaining: 2))
        #expect(limiter.admit(Self.alice, now: now + .seconds(3_600)) == .admitted(remaining: 9))
    }

    @Test("a request given back is allowed again, never past the allowance; a peer address reads as a dotted quad")
    func giveBackAndPeers() throws {
        let limiter = RateLimiter<PeerAddress>(RateLimit(requests: 2, per: .seconds(60)))
        // As the connection gives it: IPv4 mapped into IPv6's 16 bytes, in network order.
        let peer = try #require(PeerAddress(ipv6: (0, UInt64(0x0000_FFFF_7F00_0001).bigEndian)))
        #expect(peer.description == "127.0.0.1")
        #expect(PeerAddress(ipv6: (0, 0)) == nil)
        let now = ContinuousClock.now
        #expect(limiter.admit(peer, now: now) == .admitted(remaining: 1))
        limiter.giveBack(peer)
        limiter.giveBack(peer)
        #expect(limiter.admit(peer, now: now) == .admitted(remaining: 1))
        #expect(limiter.admit(peer, now: now) == .admitted(remaining: 0))
        #expect(limiter.admit(peer, now: now) == .refused(retryAfter: 30))
    }

    @Test("users whose buckets have refilled are forgotten once many users have come")
    func memoryStaysBounded() {
        let limiter = RateLimiter<UserID>(RateLimit(requests: 2, per: .seconds(1)), pruneAbove: 100)
        let now = ContinuousClock.now
        for user in 0..<100 { _ = limiter.admit(UserID(Int64(user)), now: now) }
        #expect(limiter.trackedKeys == 100)
        // A second later every one of them is full again; the next newcomer clears them out.
        #expect(limiter.admit(UserID(1_000), now: now + .seconds(1)) == .admitted(remaining: 1))
        #expect(limiter.trackedKeys == 1)
    }

    @Test("over HTTP: the allowance in headers, 429 with Retry-After past it, other users and token refusals untouched")
    func overHTTP() async throws {
        let f = try await ServerFixture.start(rateLimit: RateLimit(requests: 3, per: .seconds(60)))
        let owner = f.client("owner")
        for remaining in [2, 1, 0] {
            let reply = try await owner.get("/v1/teams/\(f.team.rawValue)")
            #expect(reply.status == 200)
            #expect(reply.header("X-RateLimit-Limit") == "3")
            #expect(reply.header("X-RateLimit-Remaining") == String(remaining))
        }
        let refused = try await owner.get("/v1/teams/\(f.team.rawValue)")
        #expect(refused.status == 429)
        // 20 s for the next request, less the time the three took (seconds on a loaded machine).
        let retryAfter = try #require(refused.header("Retry-After").flatMap { Int($0) })
        #expect((1...20).contains(retryAfter), "Retry-After: \(retryAfter)")
        #expect(refused.header("Content-Type") == "application/problem+json")
        #expect(refused.problem?.code == ProblemCode.tooManyRequests.rawValue)
        #expect(refused.problem?.detail == "more than 3 requests per 1min from this user; retry after \(retryAfter) s")
        // A refusal of the service still counts and still carries the allowance.
        let member = f.client("member")
        #expect(try await member.get("/v1/teams/NOSUCH").status == 404)
        #expect(try await member.get("/v1/teams/\(f.team.rawValue)").header("X-RateLimit-Remaining") == "1")
        // What needs no token, and a token that is refused, are not the limit's business.
        #expect(try await f.client().get("/healthz").status == 200)
        #expect(try await f.client().with(token: "tb_not-a-token").get("/v1/me").status == 401)
        await f.stop()
    }

    @Test("invented tokens from new IPv6 addresses of one /64 share one allowance; another /64 has its own")
    func inventedTokensFromOneNetwork() async throws {
        let f = try await ServerFixture.start(
            authFailureLimit: RateLimit(requests: 3, per: .seconds(60)), trustedProxies: try TrustedProxies(parsing: "127.0.0.1"))
        // Through a trusted proxy the client is the X-Forwarded-For address: a host of
        // 2001:db8:0:7::/64 sending each invented token from another of its addresses.
        var statuses: [Int] = []
        for host in 1...6 {
            let invented = try TokenSecrets(key: "another key").generate().secret
            let reply = try await f.client().with(token: invented).get("/v1/me", headers: ["X-Forwarded-For": "2001:db8:0:7::\(host)"])
            statuses.append(reply.status)
        }
        #expect(statuses == [401, 401, 401, 429, 429, 429], "\(statuses) (each address once had an allowance of its own)")
        let elsewhere = try await f.client().with(token: "tb_invented").get("/v1/me", headers: ["X-Forwarded-For": "2001:db8:0:8::1"])
        #expect(elsewhere.status == 401, "another /64 is another client")
        #expect(PeerAddress(parsing: "2001:db8:0:7::1")?.subscriber == PeerAddress(parsing: "2001:db8:0:7:ffff::9")?.subscriber)
        #expect(PeerAddress(parsing: "203.0.113.9")?.subscriber == PeerAddress(parsing: "203.0.113.9"))
        #expect(PeerAddress(parsing: "203.0.113.9")?.subscriber != PeerAddress(parsing: "203.0.113.10")?.subscriber)
        await f.stop()
    }

    @Test("invented tokens from one address cost the database its allowance of lookups, then 429; good tokens give theirs back")
    func inventedTokens() async throws {
        try await TestDatabase.with(migrated: true, purpose: "token lookups") { database in
            try await StatementLog.with(database) { log in
                let f = try await ServerFixture.start(
                    store: try await PostgresTaskStore.open(config: database.config, maxConnections: 4),
                    authFailureLimit: RateLimit(requests: 3, per: .seconds(60)))
                // Verified tokens are cached once the invalidation doorbell is connected.
                try await waitUntil("the invalidation doorbell to connect") { f.server.verifier.isCaching }
                // Good tokens are looked up once each and cost nothing of the allowance.
                for role in ["owner", "member", "viewer", "outsider"] { #expect(try await f.client(role).get("/v1/me").status == 200) }
                let start = try await log.mark()
                // The attack: well-formed tokens nobody holds, never cached, each a lookup before.
                var statuses: [Int] = []
                var refusal: HTTPClient.Reply?
                for _ in 0..<20 {
                    let invented = try TokenSecrets(key: "another key").generate().secret
                    let reply = try await f.client().with(token: invented).get("/v1/me")
                    statuses.append(reply.status)
                    if reply.status == 429 { refusal = reply }
                }
                let lookups = try await log.statements(since: start).filter { $0.contains("FROM api_tokens k WHERE k.hash") }
                #expect(statuses == Array(repeating: 401, count: 3) + Array(repeating: 429, count: 17), "\(statuses)")
                #expect(lookups.count == 3, "\(lookups.count) lookups: \(lookups)")
                let retryAfter = refusal?.header("Retry-After").flatMap { Int($0) } ?? 0
                #expect((1...20).contains(retryAfter), "Retry-After: \(retryAfter)")
                #expect(refusal?.problem?.code == ProblemCode.tooManyRequests.rawValue)
                // A token already verified is served from the cache, the allowance spent or not.
                #expect(try await f.client("owner").get("/v1/me").status == 200)
                await f.stop()
            }
        }
    }
}
