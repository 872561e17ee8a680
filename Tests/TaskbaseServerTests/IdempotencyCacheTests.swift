import Synchronization
import TaskCore
@testable import TaskbaseServer
import Testing

@Suite("What the Idempotency-Key cache keeps")
struct IdempotencyCacheTests {
    /// How many times the handler ran.
    final class Runs: Sendable {
        let count = Mutex(0)
        var value: Int { count.withLock { $0 } }
    }

    /// Runs `key` through `cache` answering `size` bytes; returns whether the body ran.
    func run(_ cache: IdempotencyCache, _ key: String, size: Int, runs: Runs) async throws {
        _ = try await cache.run(key: key, user: UserID(1), fingerprint: Array(key.utf8)) {
            runs.count.withLock { $0 += 1 }
            return HTTPResponse(status: 200, headers: [], body: .bytes([UInt8](repeating: 0x61, count: size)))
        }
    }

    @Test("an answer over maxKeptBodyBytes is not kept: a retry runs again; a small one is replayed")
    func largeAnswersNotKept() async throws {
        let cache = IdempotencyCache(maxKeptBodyBytes: 1_000, maxKeptBytes: 1 << 20)
        let runs = Runs()
        for _ in 1...2 { try await run(cache, "small", size: 1_000, runs: runs) }
        #expect(runs.value == 1)
        // Once every answer was kept whole: 16 MB import reports, 10,000 of them.
        for _ in 1...2 { try await run(cache, "large", size: 1_001, runs: runs) }
        #expect(runs.value == 3)
    }

    @Test("the kept answers stay under maxKeptBytes in all, the oldest going first")
    func boundedInAll() async throws {
        let cache = IdempotencyCache(maxKeptBodyBytes: 1_000, maxKeptBytes: 3_000)
        let runs = Runs()
        for index in 1...6 { try await run(cache, "k\(index)", size: 1_000, runs: runs) }
        #expect(runs.value == 6)
        try await run(cache, "k6", size: 1_000, runs: runs)
        #expect(runs.value == 6, "the newest is kept")
        try await run(cache, "k1", size: 1_000, runs: runs)
        #expect(runs.value == 7, "the oldest went to keep 3,000 bytes")
    }
}
