import Foundation
import Synchronization
import TaskCore
import TaskStoreMemory
import TaskbaseWire
@testable import TaskbaseServer
import Testing

@Suite("What the Idempotency-Key cache keeps")
struct IdempotencyCacheTests {
    /// How many times the handler ran.
    final class Runs: Sendable {
        let count = Mutex(0)
        var value: Int { count.withLock { $0 } }
    }

    /// A cache over a fresh memory store, claims held by `lease`, and a user of it.
    func cache(maxKeptBodyBytes: Int, lease: IdempotencyLease = .standard) async throws -> (IdempotencyCache, UserID) {
        let service = TaskService(store: MemoryTaskStore())
        let user = try await service.createUser(email: "ann@example.com", displayName: "Ann")
        return (IdempotencyCache(service: service, maxKeptBodyBytes: maxKeptBodyBytes, lease: lease), user.id)
    }

    /// Runs `key` through `cache` answering `size` bytes.
    func run(
        _ cache: IdempotencyCache, _ user: UserID, _ key: String, size: Int, keepsBody: Bool = true, runs: Runs
    ) async throws
        -> HTTPResponse
    {
        try await cache.run(key: key, user: user, fingerprint: [UInt8](repeating: UInt8(key.count), count: 32), keepsBody: keepsBody) {
            runs.count.withLock { $0 += 1 }
            return HTTPResponse(status: 201, headers: [("Location", "/v1/x")], body: .bytes([UInt8](repeating: 0x61, count: size)))
        }
    }

    @Test("an answer over maxKeptBodyBytes is kept without its body: a retry is told it succeeded, runs nothing; a small one is replayed")
    func largeAnswersNotKept() async throws {
        let (cache, user) = try await cache(maxKeptBodyBytes: 1_000)
        let runs = Runs()
        for _ in 1...2 { _ = try await run(cache, user, "small", size: 1_000, runs: runs) }
        #expect(runs.value == 1)
        let replayed = try await run(cache, user, "small", size: 1_000, runs: runs)
        #expect(replayed.status == 201 && replayed.headers.map(\.name) == ["Location"] && replayed.headers.map(\.value) == ["/v1/x"])
        // Once every answer was kept whole: 16 MB import reports, 10,000 of them. Then a large
        // one was not kept at all, and its retry ran again: a second import of rows without
        // external ids made them twice.
        _ = try await run(cache, user, "large", size: 1_001, runs: runs)
        await #expect {
            _ = try await run(cache, user, "large", size: 1_001, runs: runs)
        } throws: { error in
            let problem = error as? ProblemDocument
            return problem?.status == 409 && problem?.code == "answer_withheld" && problem?.detail.contains("1000 bytes") == true
        }
        #expect(runs.value == 2)
    }

    @Test("an answer holding a secret is kept without it: a retry is told it was made, never shown it again")
    func secretsNotKept() async throws {
        let (cache, user) = try await cache(maxKeptBodyBytes: 1_000)
        let runs = Runs()
        _ = try await run(cache, user, "token", size: 10, keepsBody: false, runs: runs)
        await #expect {
            _ = try await run(cache, user, "token", size: 10, keepsBody: false, runs: runs)
        } throws: { error in
            let problem = error as? ProblemDocument
            return problem?.status == 409 && problem?.code == "answer_withheld" && problem?.detail.contains("shown only once") == true
                && problem?.detail.contains("/v1/x") == true
        }
        #expect(runs.value == 1)
    }

    /// A request of `key` through `cache`, started and running until `release` is yielded to;
    /// its work goes on when the request is cancelled, as a transaction under way does.
    func held(
        _ cache: IdempotencyCache, _ user: UserID, key: String, fingerprint: [UInt8]
    ) async -> (
        request: Task<HTTPResponse, any Error>, release: AsyncStream<Void>.Continuation
    ) {
        let (entered, enteredGate) = AsyncStream.makeStream(of: Void.self)
        let (release, releaseGate) = AsyncStream.makeStream(of: Void.self)
        let request = Task {
            try await cache.run(key: key, user: user, fingerprint: fingerprint) {
                enteredGate.yield()
                await Task { for await _ in release { break } }.value
                return HTTPResponse(status: 201, headers: [], body: .bytes([0x61]))
            }
        }
        for await _ in entered { break }
        return (request, releaseGate)
    }

    /// A retry of `key` through `cache`, counted in `runs` if it runs.
    func retry(_ cache: IdempotencyCache, _ user: UserID, key: String, fingerprint: [UInt8], runs: Runs) async throws -> HTTPResponse {
        try await cache.run(key: key, user: user, fingerprint: fingerprint) {
            runs.count.withLock { $0 += 1 }
            return HTTPResponse(status: 201, headers: [], body: .bytes([0x62]))
        }
    }

    @Test("a retry while the first is still running is 409 idempotency_key_in_use, a code of its own, and runs nothing")
    func retryWhileRunning() async throws {
        let (cache, user) = try await cache(maxKeptBodyBytes: 1_000)
        let fingerprint = [UInt8](repeating: 7, count: 32)
        let first = await held(cache, user, key: "slow", fingerprint: fingerprint)
        let runs = Runs()
        await #expect {
            _ = try await retry(cache, user, key: "slow", fingerprint: fingerprint, runs: runs)
        } throws: { error in
            let problem = error as? ProblemDocument
            return problem?.status == 409 && problem?.code == "idempotency_key_in_use" && problem?.detail.contains("still running") == true
        }
        first.release.yield()
        #expect(try await first.request.value.status == 201)
        #expect(runs.value == 0)
    }

    @Test("the memory store keeps at most 64 MiB of answers in all, the oldest going first")
    func boundedInAll() async throws {
        let store = MemoryTaskStore()
        let user = try await TaskService(store: store).createUser(email: "bo@example.com", displayName: "Bo").id
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let megabyte = KeptAnswer(status: 200, headers: [], body: [UInt8](repeating: 0, count: 1 << 20))
        for index in 0..<70 {
            let fingerprint = [UInt8](repeating: UInt8(index), count: 32), at = start.addingTimeInterval(Double(index))
            _ = try await store.claimIdempotencyKey(
                "k\(index)", of: user, fingerprint: fingerprint, at: at, lifetime: 86_400, lapsesAfter: 30,
                abandonedAfter: 900)
            try await store.settleIdempotencyKey("k\(index)", of: user, fingerprint: fingerprint, claimedAt: at, answer: megabyte, at: at)
        }
        func kept(_ index: Int) async throws -> Bool {
            let claim = try await store.claimIdempotencyKey(
                "k\(index)", of: user, fingerprint: [UInt8](repeating: 255, count: 32), at: start.addingTimeInterval(100), lifetime: 86_400,
                lapsesAfter: 30, abandonedAfter: 900)
            if case .answered = claim { return true }
            return false
        }
        #expect(try await kept(69), "the newest is kept")
        #expect(try await !kept(0), "the oldest went to keep 64 MiB")
    }
}

/// The claim's renewal against the wall clock: a lease of 3 s renewed every 0.5 s, and a retry
/// 4 s later. Among the parallel suites a starved machine once let the renewals fall 3 s behind
/// (the test took 28 s, against 4 alone), and the claim lapsed: so it runs with the timing
/// suites, one test at a time.
@Suite("Idempotency-Key claims against the clock")
struct IdempotencyLeaseTimingTests {
    @Test("a request cancelled (its client gone) whose work goes on keeps renewing its claim: a retry past the lease is still in use")
    func cancelledRequestKeepsItsClaim() async throws {
        let suite = IdempotencyCacheTests()
        // Renewed every 0.5 s, lapsing after 3 s.
        let (cache, user) = try await suite.cache(maxKeptBodyBytes: 1_000, lease: IdempotencyLease(lapsesAfter: 3))
        let fingerprint = [UInt8](repeating: 8, count: 32)
        let first = await suite.held(cache, user, key: "cancelled", fingerprint: fingerprint)
        first.request.cancel()
        try await Task.sleep(for: .seconds(4))
        let runs = IdempotencyCacheTests.Runs()
        await #expect {
            _ = try await suite.retry(cache, user, key: "cancelled", fingerprint: fingerprint, runs: runs)
        } throws: { error in
            (error as? ProblemDocument)?.code == "idempotency_key_in_use"
        }
        first.release.yield()
        #expect(try await first.request.value.status == 201)
        #expect(runs.value == 0)
    }
}
