import Foundation
import Testing
@testable import PGStore
import TaskbaseTestSupport

/// Tests that stop and start a server: they use a second throwaway cluster of their own (port
/// `TASKBASE_PG_PORT` + 1000, or `TASKBASE_PG_RESTART_PORT`), so the suites running in
/// parallel on the main test server are not disturbed.
@Suite("Server restarts and multi-host strings", .serialized)
struct ServerRestartTimingTests {

    static var restartPort: String {
        let environment = ProcessInfo.processInfo.environment
        if let port = environment["TASKBASE_PG_RESTART_PORT"] { return port }
        return String((Int(environment["TASKBASE_PG_PORT"] ?? "") ?? 25432) + 1000)
    }

    /// The second cluster.
    static var cluster: ThrowawayCluster { ThrowawayCluster(port: restartPort) }

    @Test("after the server is stopped and started, the pool's next query succeeds without the caller doing anything")
    func poolSurvivesRestart() async throws {
        try Self.cluster.pg("start")
        defer { _ = try? Self.cluster.pg("stop") }
        let pool = PGPool(config: try PGConfig(connectionString: try Self.cluster.pg("url", "postgres")), options: PGPoolOptions(maxConnections: 4))
        let query: PGQuery = "SELECT 1 AS one"
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 { group.addTask { _ = try await pool.withConnection { try await $0.query(query) } } }
            try await group.waitForAll()
        }
        let before = pool.statistics
        try Self.cluster.pg("stop")
        try Self.cluster.pg("start")
        for _ in 0..<8 {
            #expect(try await pool.withConnection { try await $0.query(query)[0].decode(Int.self, "one") } == 1)
        }
        let after = pool.statistics
        #expect(after.discarded >= 1)
        #expect(after.created > before.created)
        #expect(after.failed == 0)
        await pool.shutdown()
    }

    /// The test server's config with `firstPort` on loopback listed before it.
    static func twoHosts(firstPort: Int) throws -> (config: PGConfig, realPort: String) {
        var config = try TestDatabase.config()
        let port = try #require(config["port"])
        config["host"] = "127.0.0.1,127.0.0.1"
        config["hostaddr"] = nil
        config["port"] = "\(firstPort),\(port)"
        return (config, port)
    }

    @Test("a multi-host string whose first host is down connects to the second, with target_session_attrs=read-write")
    func firstHostDown() async throws {
        var (config, port) = try Self.twoHosts(firstPort: LoopbackSocket.closedPort())
        config["target_session_attrs"] = "read-write"
        let connection = try await PGConnection.connect(config)
        defer { Task { await connection.close() } }
        let serverPort = try await connection.query("SELECT current_setting('port') AS port")[0].decode(String.self, "port")
        #expect(serverPort == port)
        #expect(connection.config == config)
    }

    @Test("a first host that never answers costs one connect timeout, then the second host is used")
    func firstHostSilent() async throws {
        let listener = LoopbackSocket(listening: true)
        defer { listener.close() }
        var (config, _) = try Self.twoHosts(firstPort: listener.port)
        config["sslmode"] = "disable"
        config.connectTimeout = .seconds(2)
        let started = ContinuousClock.now
        let connection = try await PGConnection.connect(config)
        let elapsed = ContinuousClock.now - started
        await connection.close()
        #expect(elapsed >= .milliseconds(1_950) && elapsed < .seconds(4), "took \(elapsed)")
    }

    @Test("when every host is down the error names each of them")
    func allHostsDown() async throws {
        let first = LoopbackSocket.closedPort(), second = LoopbackSocket.closedPort()
        var (config, _) = try Self.twoHosts(firstPort: first)
        config["port"] = "\(first),\(second)"
        let error = await #expect(throws: PGError.self) { _ = try await PGConnection.connect(config) }
        #expect(error?.kind == .connection)
        #expect(error?.message.contains("127.0.0.1:\(first)") == true)
        #expect(error?.message.contains("127.0.0.1:\(second)") == true)
    }
}
