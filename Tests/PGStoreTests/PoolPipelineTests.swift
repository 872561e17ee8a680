import Foundation
import TaskbaseTestSupport
import Testing
@testable import PGStore

/// `PGPool.pipeline`: pipelines that wait for a busy pool run together in one round trip.
///
/// Each test holds the pool's only connection, lines callers up behind it one by one (waiting
/// until the pool counts each), then lets go: what happens next is decided by the line, not by
/// timing.
@Suite("Pool pipelines")
struct PoolPipelineTests {
    /// A pool of one connection, held by `withConnection` until `release()`.
    final class HeldPool: Sendable {
        let pool: PGPool
        private let gate: AsyncStream<Void>.Continuation
        private let holder: Task<Void, Error>

        init(pipelinesPerRoundTrip: Int = 16) async throws {
            // Waiters wait as long as lining them up takes: with the default 10 s, the first in
            // line once gave up while a starved full run lined up the fifth, and the count the
            // next line-up waits for never came.
            let pool = PGPool(
                config: try TestDatabase.config(),
                options: PGPoolOptions(maxConnections: 1, acquireTimeout: .seconds(300), pipelinesPerRoundTrip: pipelinesPerRoundTrip))
            let (stream, gate) = AsyncStream<Void>.makeStream()
            self.pool = pool
            self.gate = gate
            holder = Task {
                try await pool.withConnection { _ in
                    for await _ in stream { break }
                }
            }
            try await waitUntil("the holder to check the connection out", limit: .seconds(30), every: .milliseconds(2)) {
                pool.statistics.inUse == 1
            }
        }

        /// Starts `body` as a task and returns once the pool counts one more waiter.
        func lineUp<T: Sendable>(_ body: @escaping @Sendable (PGPool) async throws -> T) async throws -> Task<T, Error> {
            let before = pool.statistics.waiting
            let pool = pool
            let task = Task { try await body(pool) }
            try await waitUntil("waiter \(before + 1) to line up", limit: .seconds(30), every: .milliseconds(2)) {
                pool.statistics.waiting == before + 1
            }
            return task
        }

        func release() async throws {
            gate.yield()
            try await holder.value
        }
    }

    /// Runs `query` on a connection of its own.
    static func execute(_ query: PGQuery) async throws {
        try await TestDatabase.withConnection { _ = try await $0.execute(query) }
    }

    /// A table of its own, dropped afterwards.
    static func withTable<T>(_ body: (String) async throws -> T) async throws -> T {
        let table = "pool_pipeline_\(UUID().uuidString.prefix(8).lowercased())"
        try await execute(PGQuery(unsafeSQL: "CREATE TABLE \(table) (n int PRIMARY KEY)"))
        do {
            let value = try await body(table)
            try await Self.execute(PGQuery(unsafeSQL: "DROP TABLE \(table)"))
            return value
        } catch {
            try? await Self.execute(PGQuery(unsafeSQL: "DROP TABLE \(table)"))
            throw error
        }
    }

    @Test("pipelines waiting for a busy pool run in one round trip, each with its own results")
    func waitingPipelinesRunTogether() async throws {
        let held = try await HeldPool()
        var tasks: [Task<[PGPipelineResult], Error>] = []
        for index in 0..<6 {
            tasks.append(
                try await held.lineUp { pool in
                    try await pool.pipeline(["SELECT \(index)::int AS n", "SELECT pg_backend_pid() AS pid"])
                })
        }
        try await held.release()
        var pids: Set<Int32> = []
        for (index, task) in tasks.enumerated() {
            let results = try await task.value
            #expect(try results[0].get()[0].decode(Int.self, "n") == index)
            pids.insert(try results[1].get()[0].decode(Int32.self, "pid"))
        }
        #expect(pids.count == 1)
        // The first in line got the connection and ran the other five with its own.
        #expect(held.pool.statistics.servedPipelines == 5)
        await held.pool.shutdown()
    }

    @Test("pipelinesPerRoundTrip bounds a round trip; 1 runs every pipeline on its own")
    func roundTripLimit() async throws {
        for (limit, served) in [(3, 4), (1, 0)] {
            let held = try await HeldPool(pipelinesPerRoundTrip: limit)
            var tasks: [Task<[PGPipelineResult], Error>] = []
            for index in 0..<6 {
                tasks.append(try await held.lineUp { pool in try await pool.pipeline(["SELECT \(index)::int AS n"]) })
            }
            try await held.release()
            for (index, task) in tasks.enumerated() {
                #expect(try await task.value[0].get()[0].decode(Int.self, "n") == index)
            }
            // Limit 3: the first in line runs the next two, the fourth the last two.
            #expect(held.pool.statistics.servedPipelines == served, "limit \(limit)")
            await held.pool.shutdown()
        }
    }

    @Test("a statement failing in one waiting pipeline rolls back that pipeline only")
    func failureStaysInItsPipeline() async throws {
        try await Self.withTable { table in
            let held = try await HeldPool()
            let failing = try await held.lineUp { pool in
                try await pool.pipeline([
                    PGQuery(unsafeSQL: "INSERT INTO \(table) VALUES (1)"), PGQuery(unsafeSQL: "INSERT INTO \(table) VALUES (NULL)"),
                ])
            }
            let passing = try await held.lineUp { pool in
                try await pool.pipeline([PGQuery(unsafeSQL: "INSERT INTO \(table) VALUES (2)")])
            }
            let counting = try await held.lineUp { pool in
                try await pool.pipeline([PGQuery(unsafeSQL: "SELECT coalesce(array_agg(n ORDER BY n), '{}')::text AS rows FROM \(table)")])
            }
            try await held.release()
            let failed = try await failing.value
            #expect(failed.firstFailure?.index == 1)
            #expect(failed.firstFailure?.error.code == .notNullViolation)
            #expect(try await passing.value[0].get().affectedRows == 1)
            #expect(try await counting.value[0].get()[0].decode(String.self, "rows") == "{2}")
            #expect(held.pool.statistics.servedPipelines == 2)
            await held.pool.shutdown()
        }
    }

    @Test("the same broken statement in two waiting pipelines reports its own error to both")
    func repeatedBrokenStatement() async throws {
        let held = try await HeldPool()
        var tasks: [Task<[PGPipelineResult], Error>] = []
        for _ in 0..<2 {
            tasks.append(try await held.lineUp { pool in try await pool.pipeline(["SELECT no_such_column FROM pg_class"]) })
        }
        try await held.release()
        for task in tasks {
            // Both see the prepare's error, not "prepared statement ... does not exist".
            #expect(try await task.value.firstFailure?.error.code == .undefinedColumn)
        }
        #expect(held.pool.statistics.servedPipelines == 1)
        await held.pool.shutdown()
    }

    @Test("a caller waiting for a connection of its own is not overtaken by pipelines behind it")
    func lineOrderIsKept() async throws {
        let sequence = "pool_pipeline_seq_\(UUID().uuidString.prefix(8).lowercased())"
        try await Self.execute(PGQuery(unsafeSQL: "CREATE SEQUENCE \(sequence)"))
        let next = PGQuery(unsafeSQL: "SELECT nextval('\(sequence)')::int AS n")
        let held = try await HeldPool()
        let first = try await held.lineUp { pool in try await pool.pipeline([next])[0].get()[0].decode(Int.self, "n") }
        let second = try await held.lineUp { pool in try await pool.pipeline([next])[0].get()[0].decode(Int.self, "n") }
        let own = try await held.lineUp { pool in
            try await pool.withConnection { try await $0.query(next)[0].decode(Int.self, "n") }
        }
        let last = try await held.lineUp { pool in try await pool.pipeline([next])[0].get()[0].decode(Int.self, "n") }
        try await held.release()
        #expect(try await [first.value, second.value, own.value, last.value] == [1, 2, 3, 4])
        #expect(held.pool.statistics.servedPipelines == 1)
        await held.pool.shutdown()
        try await Self.execute(PGQuery(unsafeSQL: "DROP SEQUENCE \(sequence)"))
    }

    @Test("a waiting pipeline whose task is cancelled is dropped and never runs")
    func cancelledWhileWaiting() async throws {
        try await Self.withTable { table in
            let held = try await HeldPool()
            let cancelled = try await held.lineUp { pool in
                try await pool.pipeline([PGQuery(unsafeSQL: "INSERT INTO \(table) VALUES (1)")])
            }
            let after = try await held.lineUp { pool in
                try await pool.pipeline([PGQuery(unsafeSQL: "INSERT INTO \(table) VALUES (2)")])
            }
            cancelled.cancel()
            try await waitUntil("the cancelled waiter to leave the line", limit: .seconds(30), every: .milliseconds(2)) {
                held.pool.statistics.waiting == 1
            }
            try await held.release()
            await #expect(throws: CancellationError.self) { try await cancelled.value }
            #expect(try await after.value[0].get().affectedRows == 1)
            let rows = try await TestDatabase.withConnection { connection in
                try await connection.query(PGQuery(unsafeSQL: "SELECT array_agg(n)::text AS rows FROM \(table)"))[0].decode(String.self, "rows")
            }
            #expect(rows == "{2}")
            await held.pool.shutdown()
        }
    }

    @Test("a connection lost during a shared round trip fails every pipeline in it; the pool then opens a new one")
    func connectionLostMidRoundTrip() async throws {
        let held = try await HeldPool()
        let killer = try await held.lineUp { pool in try await pool.pipeline(["SELECT pg_terminate_backend(pg_backend_pid())"]) }
        let bystander = try await held.lineUp { pool in try await pool.pipeline(["SELECT 1 AS n"]) }
        try await held.release()
        for task in [killer, bystander] {
            await #expect(throws: PGError.self) { try await task.value }
        }
        #expect(try await held.pool.pipeline(["SELECT 1 AS n"])[0].get()[0].decode(Int.self, "n") == 1)
        #expect(held.pool.statistics.discarded == 1)
        await held.pool.shutdown()
    }

    @Test("a caller cancelled once it holds the connection sends nothing of its own, and still runs the pipelines it took from the line")
    func cancelledHolderServesTheLine() async throws {
        let sequence = "pool_pipeline_seq_\(UUID().uuidString.prefix(8).lowercased())"
        try await Self.execute(PGQuery(unsafeSQL: "CREATE SEQUENCE \(sequence)"))
        let next = PGQuery(unsafeSQL: "SELECT nextval('\(sequence)')::int AS n")
        let pool = PGPool(config: try TestDatabase.config(), options: PGPoolOptions(maxConnections: 1, acquireTimeout: .seconds(300)))
        let (gate, open) = AsyncStream<Void>.makeStream()
        // Holds the pool's connection, then is cancelled just before it would send its pipeline
        // and the one waiting behind it, in one round trip.
        let holder = Task {
            let lease = try await pool.acquire()
            // In a task of its own: the stream would end on this task's cancellation.
            await Task { for await _ in gate { break } }.value
            withUnsafeCurrentTask { $0?.cancel() }
            return try await pool.runPipeline([next], on: lease)
        }
        try await waitUntil("the holder to check the connection out", limit: .seconds(30), every: .milliseconds(2)) {
            pool.statistics.inUse == 1
        }
        let waiter = Task { try await pool.pipeline([next])[0].get()[0].decode(Int.self, "n") }
        try await waitUntil("the waiter to line up", limit: .seconds(30), every: .milliseconds(2)) { pool.statistics.waiting == 1 }
        open.yield()
        await #expect(throws: CancellationError.self) { try await holder.value }
        // The waiter's statement ran, and first: the holder's never did.
        #expect(try await waiter.value == 1)
        #expect(pool.statistics.servedPipelines == 1)
        #expect(pool.statistics.discarded == 0)
        let handedOut = try await pool.withConnection { connection in
            try await connection.query(PGQuery(unsafeSQL: "SELECT last_value::int AS n FROM \(sequence)"))[0].decode(Int.self, "n")
        }
        #expect(handedOut == 1)
        await pool.shutdown()
        try await Self.execute(PGQuery(unsafeSQL: "DROP SEQUENCE \(sequence)"))
    }
}
