import Foundation
import Testing
@testable import PGStore
import TaskbaseTestSupport

/// Tests with wall-clock bounds or process-wide memory measurements. `scripts/test` runs every
/// suite whose name ends in `TimingTests` on its own, one test at a time, after the others, so
/// that no other test's load or allocations distort what they measure.
@Suite("Timing and memory (run alone)")
struct TimingTests {
    @Test("cancelling the Swift task cancels pg_sleep(10) on the server quickly, and the connection still works")
    func cancellation() async throws {
        try await TestDatabase.withConnection { (connection: PGConnection) async throws -> Void in
            let started = ContinuousClock.now
            let task = Task { try await connection.execute("SELECT pg_sleep(10)") }
            try await Task.sleep(for: .milliseconds(200))
            task.cancel()
            let result = await task.result
            let elapsed = ContinuousClock.now - started
            #expect(elapsed < .seconds(1), "took \(elapsed)")
            guard case .failure(let error) = result, let pgError = error as? PGError else {
                Issue.record("expected a PGError, got \(result)")
                return
            }
            #expect(pgError.code == .queryCanceled)
            #expect(try await connection.query("SELECT 1 AS one")[0].decode(Int.self, "one") == 1)
        }
    }

    @Test("a statement over its timeout is cancelled with a timeout error; the connection still works")
    func queryTimeout() async throws {
        try await TestDatabase.withConnection { (connection: PGConnection) async throws -> Void in
            let started = ContinuousClock.now
            let error = await #expect(throws: PGError.self) {
                try await connection.execute("SELECT pg_sleep(10)", timeout: .milliseconds(300))
            }
            #expect(ContinuousClock.now - started < .seconds(2))
            #expect(error?.kind == .timeout)
            #expect(error?.sqlState == "57014")
            #expect(try await connection.query("SELECT 2 AS two")[0].decode(Int.self, "two") == 2)
        }
    }

    @Test("connecting to a closed port fails within the timeout with a clear error")
    func closedPort() async throws {
        var config = try TestDatabase.config()
        config["host"] = "127.0.0.1"
        config["hostaddr"] = nil
        config["port"] = "1"
        config.connectTimeout = .seconds(3)
        let started = ContinuousClock.now
        let error = await #expect(throws: PGError.self) { _ = try await PGConnection.connect(config) }
        #expect(ContinuousClock.now - started < .seconds(3))
        #expect(error?.kind == .connection)
        #expect(error?.description.contains("127.0.0.1:1") == true)
    }

    @Test("a connect that gets no answer gives up at the connect timeout")
    func connectTimeout() async throws {
        // A listening socket that never accepts: the TCP handshake completes, the startup
        // packet is never answered.
        let listener = LoopbackSocket(listening: true)
        defer { listener.close() }
        let port = listener.port

        var config = try PGConfig(connectionString: "host=127.0.0.1 port=\(port) user=nobody dbname=nothing sslmode=disable")
        config.connectTimeout = .milliseconds(500)
        let started = ContinuousClock.now
        let error = await #expect(throws: PGError.self) { _ = try await PGConnection.connect(config) }
        let elapsed = ContinuousClock.now - started
        #expect(elapsed >= .milliseconds(450) && elapsed < .seconds(2), "took \(elapsed)")
        #expect(error?.kind == .timeout)
    }

    @Test("eight pg_sleep(0.5) on eight connections run at once: async calls do not block threads")
    func concurrencyDoesNotBlock() async throws {
        let config = try TestDatabase.config()
        var connections: [PGConnection] = []
        for _ in 0..<8 { connections.append(try await PGConnection.connect(config)) }
        let started = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for connection in connections {
                group.addTask { try await connection.execute("SELECT pg_sleep(0.5)") }
            }
            try await group.waitForAll()
        }
        let elapsed = ContinuousClock.now - started
        for connection in connections { await connection.close() }
        #expect(elapsed < .milliseconds(1200), "took \(elapsed)")
    }

    @Test("100,000 queries keep memory flat")
    func noLeak() async throws {
        try await TestDatabase.withConnection { (connection: PGConnection) async throws -> Void in
            for index in 0..<5_000 {
                _ = try await connection.query("SELECT \(index)::int8 AS n, \("text \(index)") AS t")
            }
            let before = residentMemory()
            for index in 0..<100_000 {
                let rows = try await connection.query("SELECT \(index)::int8 AS n, \("text \(index)") AS t")
                _ = try rows[0].decode(Int.self, "n")
            }
            let growth = residentMemory() - before
            #expect(growth < 4 << 20, "resident memory grew by \(growth) bytes")
        }
    }

    @Test("a NOTIFY from another connection reaches the listener well within a second")
    func deliversQuickly() async throws {
        let channel = NotificationTests.channel()
        let listener = try await PGConnection.connect(TestDatabase.config())
        defer { Task { await listener.close() } }
        let stream = try await listener.notifications(on: channel)
        let sent = ContinuousClock.now
        try await TestDatabase.withConnection { (sender: PGConnection) async throws -> Void in
            try await sender.execute("SELECT pg_notify(\(channel), \("hello"))")
            var iterator = stream.makeAsyncIterator()
            let notification = try await iterator.next()
            #expect(ContinuousClock.now - sent < .seconds(1))
            #expect(notification?.channel == channel)
            #expect(notification?.payload == "hello")
            #expect(notification?.senderPID == sender.backendPID)
        }
    }

    @Test("COPY TO of 200 MB keeps memory flat")
    func copyOutFlatMemory() async throws {
        try await TestDatabase.withConnection { (connection: PGConnection) async throws -> Void in
            let before = residentMemory()
            var total = 0
            var largest = 0
            for try await chunk in try await connection.copyOut(unsafeSQL: "SELECT g, repeat('x', 200) FROM generate_series(1, 1000000) g") {
                total += chunk.count
                largest = max(largest, chunk.count)
                await Task.yield()
            }
            #expect(total > 200_000_000)
            #expect(largest < 200_000)
            // Other suites allocate in parallel: the bound is loose, but far below what was read.
            let growth = residentMemory() - before
            #expect(growth < 48 << 20, "resident memory grew by \(growth) bytes")
        }
    }
}
