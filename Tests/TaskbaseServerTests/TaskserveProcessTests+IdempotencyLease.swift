import Foundation
import PGStore
import TaskbaseTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// An `Idempotency-Key`'s claim across taskserve processes: held while its request runs, freed
/// soon after its server dies (migration 0036), and never written under by a run that lost it
/// (migration 0037).
extension TaskserveProcessTests {
    /// The lease both servers run with: short, so that the test is, and renewed every half second.
    static let leaseSeconds = 3

    /// Two servers under the short lease sharing the database, a member's team and token, and a
    /// connection of the test's own that holds the team's task counter, so that a keyed
    /// creation waits, holding its claim (it changes nothing before it has the lock).
    struct LeasedServers {
        let first: ServeProcess, second: ServeProcess
        let team: String, token: String
        let blocker: PGConnection

        init(_ tests: TaskserveProcessTests) async throws {
            let environment = try await tests.environment()
            let (_, team, token) = try await tests.castMember(environment)
            // A held request waits on a lock longer than a loaded machine might take to check on it.
            let arguments = ["--idempotency-lease", String(TaskserveProcessTests.leaseSeconds), "--lock-timeout", "60s"]
            first = try await ServeProcess(environment: environment, arguments: arguments)
            second = try await ServeProcess(environment: environment, arguments: arguments)
            (self.team, self.token) = (team, token.token)
            blocker = try await PGConnection.connect(try await TestDatabases.shared.value)
        }

        /// Creates a task titled `title` on `serve` under `key`.
        func create(_ serve: ServeProcess, key: String, title: String) async throws -> HTTPClient.Reply {
            try await HTTPClient(baseURL: serve.baseURL, token: token).send(
                "POST", "/v1/teams/\(team)/tasks", json: #"{"title": "\#(title)"}"#, headers: ["Idempotency-Key": key])
        }

        /// Locks the team's counter row, as another writer would, until `release`.
        func holdTheCounter() async throws {
            try await blocker.execute("BEGIN")
            try await blocker.execute("SELECT FROM task_counters c JOIN teams t ON t.id = c.team_id WHERE t.key = \(team) FOR UPDATE")
        }

        /// Lets the held requests go on.
        func release() async throws {
            try await blocker.execute("COMMIT")
        }

        /// Waits until `count` requests wait on the counter: on the lock, or queued behind one
        /// that does (a row lock's second waiter waits on the first).
        func waitForHeldRequests(_ count: Int = 1) async throws {
            try await Self.waitForSessions(count, heldBy: blocker)
        }

        /// A session of the test's own holding `key`'s row, as a slow writer would, until
        /// `stop(_:onceItWaitsOn:)` frees it.
        func holdTheKey(_ key: String) async throws -> PGConnection {
            let holder = try await PGConnection.connect(try await TestDatabases.shared.value)
            try await holder.execute("BEGIN")
            try await holder.execute("SELECT FROM idempotency_keys WHERE key = \(key) FOR UPDATE")
            return holder
        }

        /// Stops `serve` (SIGSTOP: a paused VM, a long stall) once a statement of its waits on the
        /// row `holder` holds, then frees the row: that statement goes on in the database without
        /// its process, which is stopped mid-statement. Freed only once the process has stopped:
        /// freed as soon as SIGSTOP is sent, a loaded machine's process can read the statement's
        /// answer and go on before it stops.
        func stop(_ serve: ServeProcess, onceItWaitsOn holder: PGConnection) async throws {
            try await Self.waitForSessions(1, heldBy: holder)
            try await serve.pause()
            try await holder.execute("COMMIT")
            await holder.close()
        }

        /// Waits until `count` sessions wait on a lock `holder` holds, or queue behind one that does.
        static func waitForSessions(_ count: Int, heldBy holder: PGConnection) async throws {
            let pid = Int64(holder.backendPID)
            try await waitUntil("\(count) request(s) to wait on the lock", limit: .seconds(45), every: .milliseconds(20)) {
                try await holder.execute("SELECT pg_stat_clear_snapshot()")
                return try await holder.query(
                    """
                    SELECT count(*)::int AS n FROM pg_stat_activity a
                     WHERE \(pid) = ANY(pg_blocking_pids(a.pid))
                        OR EXISTS (SELECT FROM pg_stat_activity h WHERE h.pid = ANY(pg_blocking_pids(a.pid)) AND \(pid) = ANY(pg_blocking_pids(h.pid)))
                    """
                )[0].decode(Int.self, "n") >= count
            }
        }

        /// How many of the team's tasks are titled `title`.
        func tasks(titled title: String) async throws -> Int {
            try await blocker.query(
                "SELECT count(*)::int AS n FROM tasks t JOIN teams m ON m.id = t.team_id WHERE m.key = \(team) AND t.title = \(title)"
            )[0].decode(Int.self, "n")
        }
    }

    @Test(
        "a live server's long keyed request keeps its key past the lease; killed with SIGKILL mid-request, its key is free within the lease, not 15 minutes"
    )
    func idempotencyLeaseAcrossProcesses() async throws {
        for bad in ["0", "86401"] {
            let refused = try await Self.offline(["--idempotency-lease", bad])
            #expect(refused.exitCode == 2 && refused.standardError.contains("--idempotency-lease wants seconds, 1 to 86400"), "\(refused)")
        }
        let servers = try await LeasedServers(self)
        let (first, second, blocker) = (servers.first, servers.second, servers.blocker)
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
        try await servers.holdTheCounter()
        let long = Task { try await servers.create(first, key: kept, title: "Long") }
        try await servers.waitForHeldRequests()
        try await Task.sleep(for: .seconds(Double(Self.leaseSeconds) + 1.5))
        let meanwhile = try await servers.create(second, key: kept, title: "Long")
        #expect(meanwhile.status == 409 && meanwhile.problem?.code == "idempotency_key_in_use", "\(meanwhile.status) \(meanwhile.text)")
        let claimed = try await claim(kept)
        #expect(claimed.count == 1 && claimed.renewed, "renewed while it ran")
        try await servers.release()
        let answered = try await long.value
        #expect(answered.status == 201, "\(answered.text)")
        let replayed = try await servers.create(second, key: kept, title: "Long")
        #expect(replayed.status == 201 && replayed.header("Location") == answered.header("Location"), "\(replayed.status) \(replayed.text)")

        // Killed mid-request, before its change: the retry on the other server runs it once
        // the lease has lapsed. Its database session ends too, as when its machine is lost.
        let killed = "killed-\(UUID().uuidString)"
        try await servers.holdTheCounter()
        let doomed = Task { try? await servers.create(first, key: killed, title: "Killed mid-request") }
        try await servers.waitForHeldRequests()
        _ = try await first.stop(signal: SIGKILL)
        _ = try await blocker.query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE \(Int64(blocker.backendPID)) = ANY(pg_blocking_pids(pid))")
        try await servers.release()
        _ = await doomed.value
        var retried: HTTPClient.Reply?
        // Within the lease and some slack for a loaded machine; once, every retry was told
        // idempotency_key_in_use for a quarter of an hour.
        try await waitUntil("the retry to run", limit: .seconds(Self.leaseSeconds + 10), every: .milliseconds(100)) {
            let reply = try await servers.create(second, key: killed, title: "Killed mid-request")
            retried = reply
            return reply.problem?.code != "idempotency_key_in_use"
        }
        #expect(retried?.status == 201, "\(retried?.status ?? 0) \(retried?.text ?? "")")
        #expect(try await servers.tasks(titled: "Killed mid-request") == 1, "made once, by the retry")
        await blocker.close()
        #expect(try await second.stop() == 0)
    }

    @Test(
        "a server paused past the lease mid-request, its claim taken over by a retry elsewhere, writes nothing when it resumes: the request is made once, and the paused one is told 409"
    )
    func idempotencyClaimTakenOverWritesNothing() async throws {
        let servers = try await LeasedServers(self)
        let (first, second) = (servers.first, servers.second)
        let key = "paused-\(UUID().uuidString)", title = "Paused mid-request"
        // The first server's request waits on the counter, its statement sent; then its process
        // stops (SIGSTOP: a paused VM, a long stall), and its renewals with it. It stops at its
        // worst moment, mid-renewal: the test holds the key's row until a renewal waits on it,
        // and frees it once the process is stopped. The renewal must leave the row unlocked.
        try await servers.holdTheCounter()
        let paused = Task { try await servers.create(first, key: key, title: title) }
        try await servers.waitForHeldRequests()
        try await servers.stop(first, onceItWaitsOn: try await servers.holdTheKey(key))
        // Past the lease, a retry on the other server takes the claim over and waits on the
        // counter behind the paused request's statement.
        try await Task.sleep(for: .seconds(Double(Self.leaseSeconds) + 1.5))
        let retry = Task { try await servers.create(second, key: key, title: title) }
        try await servers.waitForHeldRequests(2)
        // The counter freed, the paused request's statement goes on in the database without its
        // process: its insert is refused, the claim being the retry's; the retry makes the task.
        try await servers.release()
        let retried = try await retry.value
        #expect(retried.status == 201, "\(retried.status) \(retried.text)")
        first.resume()
        let resumed = try await paused.value
        #expect(resumed.status == 409 && resumed.problem?.code == "idempotency_key_in_use", "\(resumed.status) \(resumed.text)")
        #expect(try await servers.tasks(titled: title) == 1, "made once, by the retry")
        // The client's next retry is answered with the retry's answer.
        let replayed = try await servers.create(first, key: key, title: title)
        #expect(replayed.status == 201 && replayed.header("Location") == retried.header("Location"), "\(replayed.status) \(replayed.text)")
        await servers.blocker.close()
        #expect(try await first.stop() == 0)
        #expect(try await second.stop() == 0)
    }

    @Test(
        "a server paused mid-claim, once it has taken a lapsed claim over, holds no lock on the key: a retry elsewhere is answered without waiting for it, and the request is made once"
    )
    func idempotencyClaimPausedMidClaimHoldsNoLock() async throws {
        let servers = try await LeasedServers(self)
        let (first, second) = (servers.first, servers.second)
        let key = "mid-claim-\(UUID().uuidString)", title = "Paused mid-claim"
        // The claim of a server that died a minute ago, its lease long lapsed: the next request
        // under the key takes it over.
        let died = Date().addingTimeInterval(-60)
        try await servers.blocker.execute(
            """
            INSERT INTO idempotency_keys (user_id, key, fingerprint, claimed_at, renewed_at)
            SELECT m.user_id, \(key), \(Data(count: 32)), \(died), \(died)
              FROM memberships m JOIN teams t ON t.id = m.team_id WHERE t.key = \(servers.team)
            """)
        // The first server's claim stops at its worst moment: the test holds the key's row until
        // the claim's takeover waits on it, stops the process (SIGSTOP: a paused VM, a long
        // stall), then frees the row. The takeover goes on in the database without its process,
        // and must leave the row unlocked.
        let keyHolder = try await servers.holdTheKey(key)
        let paused = Task { try await servers.create(first, key: key, title: title) }
        try await servers.stop(first, onceItWaitsOn: keyHolder)
        // Past the lease of the paused claim, a retry on the other server takes it over and is
        // answered, instead of waiting on a row the paused process keeps locked.
        try await Task.sleep(for: .seconds(Double(Self.leaseSeconds) + 1.5))
        let retried: HTTPClient.Reply
        do {
            retried = try await servers.create(second, key: key, title: title)
        } catch {
            first.resume()
            throw error
        }
        #expect(retried.status == 201, "\(retried.status) \(retried.text)")
        // Resumed, the paused request writes nothing under the claim it lost.
        first.resume()
        let resumed = try await paused.value
        #expect(resumed.status == 409 && resumed.problem?.code == "idempotency_key_in_use", "\(resumed.status) \(resumed.text)")
        #expect(try await servers.tasks(titled: title) == 1, "made once, by the retry")
        await servers.blocker.close()
        #expect(try await first.stop() == 0)
        #expect(try await second.stop() == 0)
    }
}
