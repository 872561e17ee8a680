import Foundation
import Testing
@testable import PGStore
import TaskbaseTestSupport

@Suite("Connection pool")
struct PoolTimingTests {
    /// The test config with an application name of its own, to count its sessions on the server.
    static func config(named name: String) throws -> PGConfig {
        var config = try TestDatabase.config()
        config["application_name"] = name
        return config
    }

    static func serverSessions(named name: String) async throws -> Int {
        try await TestDatabase.withConnection { connection in
            try await connection.query("SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = \(name)")[0]
                .decode(Int.self, "n")
        }
    }

    @Test("64 concurrent tasks on a pool of 8 all complete, a ninth connection is never opened, and the statistics add up")
    func sixtyFourOnEight() async throws {
        let name = "pool_\(UUID().uuidString.prefix(8))"
        let pool = PGPool(config: try Self.config(named: name), options: PGPoolOptions(maxConnections: 8))
        let completed = try await withThrowingTaskGroup(of: Int.self) { group in
            for task in 0..<64 {
                group.addTask {
                    var done = 0
                    for round in 0..<20 {
                        let value = try await pool.withConnection { connection in
                            try await connection.query("SELECT \(task * 100 + round)::int AS n")[0].decode(Int.self, "n")
                        }
                        if value == task * 100 + round { done += 1 }
                    }
                    return done
                }
            }
            group.addTask {
                var most = 0
                for _ in 0..<5 {
                    most = max(most, try await Self.serverSessions(named: name))
                    try await Task.sleep(for: .milliseconds(20))
                }
                return -most
            }
            var total = 0
            for try await value in group where value >= 0 { total += value }
            return total
        }
        #expect(completed == 64 * 20)
        let stats = pool.statistics
        #expect(stats.peakOpen <= 8)
        #expect(stats.created <= 8)
        #expect(stats.inUse == 0 && stats.waiting == 0 && stats.opening == 0)
        #expect(stats.open == stats.idle && stats.idle == stats.created)
        #expect(stats.failed == 0)
        #expect(try await Self.serverSessions(named: name) <= 8)
        await pool.shutdown()
        #expect(pool.statistics.open == 0)
    }

    @Test("a connection handed back inside a transaction is rolled back before its next use")
    func rollsBackOnReturn() async throws {
        let pool = PGPool(config: try TestDatabase.config(), options: PGPoolOptions(maxConnections: 1))
        try await pool.withConnection { connection in
            try await connection.execute("CREATE TABLE IF NOT EXISTS pool_leftovers (n int)")
        }
        let pid = try await pool.withConnection { connection in
            try await connection.execute("BEGIN")
            try await connection.execute("INSERT INTO pool_leftovers VALUES (1)")
            return connection.backendPID
        }
        try await pool.withConnection { connection in
            #expect(connection.backendPID == pid)
            #expect(connection.transactionStatus == .idle)
            #expect(try await connection.query("SELECT count(*) AS n FROM pool_leftovers")[0].decode(Int.self, "n") == 0)
            try await connection.execute("DROP TABLE pool_leftovers")
        }
        await pool.shutdown()
    }

    @Test("waiting longer than the acquire timeout is a timeout error; shutdown waits for the connection in use")
    func acquireTimeoutAndShutdown() async throws {
        let pool = PGPool(config: try TestDatabase.config(), options: PGPoolOptions(maxConnections: 1, acquireTimeout: .milliseconds(200)))
        let holder = Task {
            try await pool.withConnection { connection in try await connection.execute("SELECT pg_sleep(2)") }
        }
        try await Task.sleep(for: .milliseconds(100))
        let started = ContinuousClock.now
        let error = await #expect(throws: PGError.self) { try await pool.withConnection { _ in } }
        #expect(error?.kind == .timeout)
        #expect(ContinuousClock.now - started >= .milliseconds(200))
        #expect(ContinuousClock.now - started < .milliseconds(1_500))
        #expect(pool.statistics.open == 1)
        await pool.shutdown()
        #expect(ContinuousClock.now - started >= .milliseconds(1_500))
        _ = try await holder.value
        #expect(pool.statistics.open == 0)
        await #expect(throws: PGError.self) { try await pool.withConnection { _ in } }
    }

    @Test("a connection the server terminated while idle is replaced without the caller noticing")
    func replacesTerminated() async throws {
        let pool = PGPool(config: try TestDatabase.config(), options: PGPoolOptions(maxConnections: 2))
        let pid = try await pool.withConnection { $0.backendPID }
        try await TestDatabase.withConnection { (admin: PGConnection) async throws -> Void in
            try await admin.execute("SELECT pg_terminate_backend(\(pid))")
        }
        try await Task.sleep(for: .milliseconds(100))
        let newPID = try await pool.withConnection { connection in
            try await connection.query("SELECT pg_backend_pid() AS pid")[0].decode(Int32.self, "pid")
        }
        #expect(newPID != pid)
        #expect(pool.statistics.discarded == 1)
        await pool.shutdown()
    }

    @Test("idle connections past the idle timeout are closed")
    func idleTimeout() async throws {
        let pool = PGPool(config: try TestDatabase.config(), options: PGPoolOptions(maxConnections: 2, idleTimeout: .milliseconds(300)))
        try await pool.withConnection { _ in }
        #expect(pool.statistics.idle == 1)
        try await Task.sleep(for: .milliseconds(700))
        #expect(pool.statistics.idle == 0)
        #expect(pool.statistics.discarded == 1)
        await pool.shutdown()
    }

    @Test("a connection older than its max lifetime is replaced")
    func maxLifetime() async throws {
        let pool = PGPool(config: try TestDatabase.config(), options: PGPoolOptions(maxConnections: 2, maxLifetime: .milliseconds(200)))
        let first = try await pool.withConnection { $0.backendPID }
        try await Task.sleep(for: .milliseconds(400))
        let second = try await pool.withConnection { $0.backendPID }
        #expect(first != second)
        #expect(pool.statistics.created == 2)
        #expect(pool.statistics.discarded == 1)
        await pool.shutdown()
    }

    @Test("a server that cannot be reached is a connection error, counted as failed, holding no slot")
    func unreachable() async throws {
        var config = try TestDatabase.config()
        config["host"] = "127.0.0.1"
        config["hostaddr"] = nil
        config["port"] = String(LoopbackSocket.closedPort())
        let pool = PGPool(config: config, options: PGPoolOptions(maxConnections: 1))
        for _ in 0..<2 {
            let error = await #expect(throws: PGError.self) { try await pool.withConnection { _ in } }
            #expect(error?.isConnectionLost == true)
        }
        let stats = pool.statistics
        #expect(stats.failed == 2 && stats.open == 0 && stats.created == 0)
        await pool.shutdown()
    }
}
