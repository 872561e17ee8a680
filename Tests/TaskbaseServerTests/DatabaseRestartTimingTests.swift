import Foundation
import PGStore
import TaskbaseTestSupport
import TaskbaseWire
import Testing

/// A `taskserve` process against a throwaway cluster of its own (`scripts/pg` on port
/// `TASKBASE_SERVE_RESTART_PORT`, default 25470), which the test stops and starts: the suites
/// running on the main test server are not disturbed.
@Suite("taskserve across a database restart", .serialized, .timeLimit(.minutes(3)))
struct DatabaseRestartTimingTests {
    static var cluster: ThrowawayCluster {
        ThrowawayCluster(port: ProcessInfo.processInfo.environment["TASKBASE_SERVE_RESTART_PORT"] ?? "25470")
    }

    func run(_ program: String, _ arguments: [String], _ environment: [String: String]) async throws -> ProgramRun {
        let run = try await BuiltProgram.run(BuiltProgram.url(program), arguments: arguments, environment: environment)
        #expect(run.exitCode == 0, "\(program) \(arguments): \(run.standardError)")
        return run
    }

    /// A request during the outage: answered 503 with Retry-After, quickly, never 500 or a hang.
    func refused(_ reply: () async throws -> HTTPClient.Reply) async throws {
        let started = ContinuousClock.now
        let answer = try await reply()
        #expect(answer.status == 503, "\(answer.status): \(answer.text)")
        #expect(answer.header("Retry-After") != nil)
        #expect(answer.problem?.code == "unavailable")
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    @Test("while the database is down requests get 503 with Retry-After; once it is back they succeed, with nothing half-written")
    func restart() async throws {
        try Self.cluster.pg("start")
        defer { _ = try? Self.cluster.pg("stop") }
        // A database of its own, made anew: one an earlier run left holds that run's migration history.
        let url = try Self.cluster.pg("url", "serve_restart")
        try await TestDatabases.recreate(try PGConfig(connectionString: url))
        var environment = [
            "DATABASE_URL": url + "?connect_timeout=3", "TASKBASE_TOKEN_KEY": "restart test key",
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
        ]
        _ = try await run("taskmigrate", ["up"], environment)
        let suffix = String(UInt32.random(in: 0..<UInt32.max), radix: 36)
        let email = "restart.\(suffix)@example.com", team = "R" + suffix.uppercased().prefix(8)
        _ = try await run("taskctl", ["user", "add", email, "--name", "Restart"], environment)
        _ = try await run("taskctl", ["team", "create", team, "--name", "Restart team", "--as", email], environment)
        let minted = try await run("taskctl", ["token", "create", email, "--json"], environment)
        let token = try WireJSON.makeDecoder().decode(NewTokenDocument.self, from: Data(minted.standardOutput.utf8))
        environment["TASKBASE_POOL_TIMEOUT_MS"] = "1000"
        let serve = try await ServeProcess(environment: environment, arguments: ["--heartbeat", "1"])
        let client = HTTPClient(baseURL: serve.baseURL, token: token.token)

        let before = try await client.send("POST", "/v1/teams/\(team)/tasks", json: #"{"title": "Before the restart"}"#)
        #expect(before.status == 201)
        let task = try before.decode(TaskDocument.self)
        let stream = try RawConnection(port: serve.port)
        stream.get("/v1/teams/\(team)/events", headers: ["Authorization": "Bearer \(token.token)", "Last-Event-ID": "0"])
        #expect(await stream.read(until: { _ in stream.changeEvents().count == 1 }))
        let seen = try #require(stream.changeEvents().last?.id)

        // A write caught mid-transaction by the stop: it has begun and waits on the team's counter,
        // which another session holds. The stop ends both sessions; nothing of it may remain.
        let database = try TestDatabase(config: try PGConfig(connectionString: url))
        let blocker = try await database.holding("LOCK TABLE task_counters IN EXCLUSIVE MODE")
        let inFlight = Task { try await client.send("POST", "/v1/teams/\(team)/tasks", json: #"{"title": "In flight at the stop"}"#) }
        try await waitUntil("the write to wait on the counter", limit: .seconds(20), every: .milliseconds(20)) {
            try await database.lockWaiters() == 1
        }

        // Readers keep reading while the server goes down: each answer is 200 or 503, never 500.
        let readers = Task {
            var statuses: Set<Int> = []
            let until = ContinuousClock.now + .milliseconds(1_500)
            while ContinuousClock.now < until {
                statuses.formUnion(
                    try await withThrowingTaskGroup(of: Int.self) { group in
                        for _ in 0..<4 { group.addTask { try await client.get("/v1/tasks/\(task.key)").status } }
                        return try await group.reduce(into: Set<Int>()) { $0.insert($1) }
                    })
            }
            return statuses
        }
        try await Task.sleep(for: .milliseconds(50))
        try Self.cluster.pg("stop")
        let statuses = try await readers.value
        #expect(statuses == [200, 503], "\(statuses)")
        let cutOff = try await inFlight.value
        #expect(cutOff.status == 503, "\(cutOff.status): \(cutOff.text)")
        await blocker.close()
        try await refused { try await client.get("/readyz") }
        try await refused { try await client.get("/v1/tasks/\(task.key)") }
        try await refused { try await client.send("POST", "/v1/teams/\(team)/tasks", json: #"{"title": "During the outage"}"#) }
        try await refused { try await client.send("PATCH", "/v1/tasks/\(task.key)", json: #"{"title": "Changed during the outage"}"#) }
        try await refused {
            try await client.send(
                "POST", "/v1/teams/\(team)/imports", body: Data("Title\nImported during the outage\n".utf8), headers: ["Content-Type": "text/csv"])
        }
        // The stream's listening session is gone: the stream ends, and the client resumes later.
        #expect(await stream.readUntilClosed(limit: .seconds(10)))
        #expect(try await client.get("/healthz").status == 200)

        try Self.cluster.pg("start")
        try await waitUntil("requests to succeed again", limit: .seconds(30), every: .milliseconds(200)) {
            guard try await client.get("/readyz").status == 200 else { return false }
            return try await client.get("/v1/tasks/\(task.key)").status == 200
        }
        let resumed = try RawConnection(port: serve.port)
        resumed.get("/v1/teams/\(team)/events", headers: ["Authorization": "Bearer \(token.token)", "Last-Event-ID": String(seen)])
        #expect(await resumed.read(until: { $0.contains(": connected") }))
        let after = try await client.send("POST", "/v1/teams/\(team)/tasks", json: #"{"title": "After the restart"}"#)
        #expect(after.status == 201)
        #expect(await resumed.read(until: { _ in resumed.changeEvents().count == 1 }))
        #expect(resumed.text.contains("After the restart"))
        #expect(resumed.changeEvents().count == 1 && !resumed.text.contains("In flight"), "\(resumed.text)")

        let titles = try await client.get("/v1/teams/\(team)/tasks?sort=number").decode(TaskPageDocument.self).tasks.map(\.title)
        #expect(titles == ["Before the restart", "After the restart"])
        // The cut-off write took no number either: its counter update went with its transaction.
        #expect(try after.decode(TaskDocument.self).key == "\(team)-2")
        #expect(try await client.get("/v1/tasks/\(team)-2/history").decode([HistoryDocument].self).count == 1)
        let kept = try await client.get("/v1/tasks/\(task.key)").decode(TaskDocument.self)
        #expect(kept.version == 1 && kept.title == "Before the restart")
        #expect(try await client.get("/v1/tasks/\(task.key)/history").decode([HistoryDocument].self).count == 1)
        #expect(!serve.accessLog.contains { $0["status"] as? Int == 500 })
        #expect(try await serve.stop() == 0)
    }
}
