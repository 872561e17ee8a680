import Foundation
import PGStore
import TaskbaseTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// An `Idempotency-Key`'s claim across taskserve processes: held while its request runs, freed
/// soon after its server dies (migration 0036).
extension TaskserveProcessTests {
    /// The lease both servers run with: short, so that the test is, and renewed every half second.
    static let leaseSeconds = 3

    @Test(
        "a live server's long keyed request keeps its key past the lease; killed with SIGKILL mid-request, its key is free within the lease, not 15 minutes"
    )
    func idempotencyLeaseAcrossProcesses() async throws {
        for bad in ["0", "86401"] {
            let refused = try await Self.offline(["--idempotency-lease", bad])
            #expect(refused.exitCode == 2 && refused.standardError.contains("--idempotency-lease wants seconds, 1 to 86400"), "\(refused)")
        }
        let environment = try await environment()
        let (_, team, token) = try await castMember(environment)
        // A held request waits on a lock longer than a loaded machine might take to check on it.
        let arguments = ["--idempotency-lease", String(Self.leaseSeconds), "--lock-timeout", "60s"]
        let first = try await ServeProcess(environment: environment, arguments: arguments)
        let second = try await ServeProcess(environment: environment, arguments: arguments)
        func create(_ serve: ServeProcess, key: String, title: String) async throws -> HTTPClient.Reply {
            try await HTTPClient(baseURL: serve.baseURL, token: token.token).send(
                "POST", "/v1/teams/\(team)/tasks", json: #"{"title": "\#(title)"}"#, headers: ["Idempotency-Key": key])
        }
        // A request held: it waits, holding its claim, on the team's counter row, locked here
        // as another writer would (its creation changes nothing before it has the lock).
        let database = try await TestDatabases.shared.value
        let blocker = try await PGConnection.connect(database)
        func holdTheCounter() async throws {
            try await blocker.execute("BEGIN")
            try await blocker.execute("SELECT FROM task_counters c JOIN teams t ON t.id = c.team_id WHERE t.key = \(team) FOR UPDATE")
        }
        func waitForTheHeldRequest() async throws {
            try await waitUntil("the request to wait on the lock", limit: .seconds(45), every: .milliseconds(20)) {
                try await blocker.execute("SELECT pg_stat_clear_snapshot()")
                return try await blocker.query(
                    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE \(Int64(blocker.backendPID)) = ANY(pg_blocking_pids(pid))")[0]
                    .decode(Int.self, "n") >= 1
            }
        }
        func claim(_ key: String) async throws -> (renewed: Bool, count: Int) {
            let row = try await blocker.query(
                """
                SELECT count(*)::int AS n, coalesce(bool_and(renewed_at > claimed_at), false) AS renewed
                  FROM idempotency_keys WHERE key = \(key)
                """)[0]
            return (try row.decode(Bool.self, "renewed"), try row.decode(Int.self, "n"))
        }

        // A live server's request running past the lease keeps its key: its claim is renewed.
        let kept = "kept-\(UUID().uuidString)"
        try await holdTheCounter()
        let long = Task { try await create(first, key: kept, title: "Long") }
        try await waitForTheHeldRequest()
        try await Task.sleep(for: .seconds(Double(Self.leaseSeconds) + 1.5))
        let meanwhile = try await create(second, key: kept, title: "Long")
        #expect(meanwhile.status == 409 && meanwhile.problem?.code == "idempotency_key_in_use", "\(meanwhile.status) \(meanwhile.text)")
        let claimed = try await claim(kept)
        #expect(claimed.count == 1 && claimed.renewed, "renewed while it ran")
        try await blocker.execute("COMMIT")
        let answered = try await long.value
        #expect(answered.status == 201, "\(answered.text)")
        let replayed = try await create(second, key: kept, title: "Long")
        #expect(replayed.status == 201 && replayed.header("Location") == answered.header("Location"), "\(replayed.status) \(replayed.text)")

        // Killed mid-request, before its change: the retry on the other server runs it once
        // the lease has lapsed. Its database session ends too, as when its machine is lost.
        let killed = "killed-\(UUID().uuidString)"
        try await holdTheCounter()
        let doomed = Task { try? await create(first, key: killed, title: "Killed mid-request") }
        try await waitForTheHeldRequest()
        _ = try await first.stop(signal: SIGKILL)
        _ = try await blocker.query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE \(Int64(blocker.backendPID)) = ANY(pg_blocking_pids(pid))")
        try await blocker.execute("COMMIT")
        _ = await doomed.value
        var retried: HTTPClient.Reply?
        // Within the lease and some slack for a loaded machine; once, every retry was told
        // idempotency_key_in_use for a quarter of an hour.
        try await waitUntil("the retry to run", limit: .seconds(Self.leaseSeconds + 10), every: .milliseconds(100)) {
            let reply = try await create(second, key: killed, title: "Killed mid-request")
            retried = reply
            return reply.problem?.code != "idempotency_key_in_use"
        }
        #expect(retried?.status == 201, "\(retried?.status ?? 0) \(retried?.text ?? "")")
        let made = try await blocker.query(
            "SELECT count(*)::int AS n FROM tasks t JOIN teams m ON m.id = t.team_id WHERE m.key = \(team) AND t.title = 'Killed mid-request'")
        #expect(try made[0].decode(Int.self, "n") == 1, "made once, by the retry")
        await blocker.close()
        #expect(try await second.stop() == 0)
    }
}
