import Foundation
import PGStore
import TaskCore
import TaskStoreContract
import Testing
@testable import TaskStorePG
import TaskbaseTestSupport

@Suite("Postgres store only")
struct PostgresOnlyTests {
    /// A team `KEY` owned by a fresh user, with `members` more members.
    func makeTeam(_ service: TaskService, members: Int = 0) async throws -> (team: TeamKey, owner: UserRef, members: [UserRef]) {
        let suffix = String(UInt32.random(in: 0...UInt32.max), radix: 36).uppercased()
        let owner = try await service.createUser(email: "owner.\(suffix.lowercased())@example.com", displayName: "Owner")
        let team = try await service.createTeam(key: "P" + suffix, name: "Team \(suffix)", as: .id(owner.id))
        var refs: [UserRef] = []
        for index in 0..<members {
            let user = try await service.createUser(email: "m\(index).\(suffix.lowercased())@example.com", displayName: "M\(index)")
            _ = try await service.setRole(.member, for: .email(user.email), in: team.key, as: .id(owner.id))
            refs.append(.id(user.id))
        }
        return (team.key, .id(owner.id), refs)
    }

    @Test("members and users are listed in code-point order, as the memory store lists them, whatever the column's collation")
    func listingOrderIgnoresCollation() async throws {
        try await TestDatabase.with(migrated: true, purpose: "listing order") { database in
            // A database made with a locale (en_US, the usual images) sorts é with e, before f;
            // code points put f (U+0066) first. The test cluster has none, so the column gets one.
            try await database.withConnection {
                _ = try await $0.simpleQuery(unsafeSQL: #"ALTER TABLE users ALTER COLUMN email TYPE text COLLATE "und-x-icu""#)
            }
            let store = try await PostgresTaskStore.open(config: database.config, maxConnections: 2)
            let service = TaskService(store: store)
            let owner = try await service.createUser(email: "owner@example.com", displayName: "Owner")
            let team = try await service.createTeam(key: "ORDER", name: "Order", as: .id(owner.id)).key
            for email in ["\u{E9}lise@example.com", "fay@example.com", "eve@example.com"] {
                let user = try await service.createUser(email: email, displayName: "User")
                _ = try await service.setRole(.member, for: .email(user.email), in: team, as: .id(owner.id))
            }
            let expected = ["eve@example.com", "fay@example.com", "owner@example.com", "\u{E9}lise@example.com"]
            #expect(try await service.members(of: team, as: .id(owner.id)).map(\.user.email) == expected)
            #expect(try await service.users().map(\.email) == expected)
            #expect(expected == expected.sorted(), "Swift's order, the memory store's")
        }
    }

    @Test("20 concurrent creators on 20 connections get distinct, gapless numbers")
    func concurrentCreators() async throws {
        let config = try await TestDatabases.shared.value
        let store = try await PostgresTaskStore.open(config: config, maxConnections: 20)
        let service = TaskService(store: store)
        let (team, _, members) = try await makeTeam(service, members: 20)
        let numbers = try await withThrowingTaskGroup(of: Int64.self) { group in
            for (index, member) in members.enumerated() {
                group.addTask { try await service.createTask(in: team, try TaskDraft(title: "Task \(index)"), as: member).key.number }
            }
            return try await group.reduce(into: [Int64]()) { $0.append($1) }
        }
        #expect(numbers.sorted() == Array(1...20))
    }

    @Test("a re-import that changes every title leaves each task's new version on its page (a HOT update)")
    func reimportUpdatesInPlace() async throws {
        let config = try await TestDatabases.shared.value
        let service = TaskService(store: try await SharedStore.store())
        let (team, owner, _) = try await makeTeam(service)
        // Same-length titles: the new versions need what the old ones took, which fillfactor
        // 50 leaves free on every page written by the first import.
        func drafts(_ word: String) throws -> [TaskImportDraft] {
            try (1...600).map { try TaskImportDraft(try TaskDraft(title: "\(word) \($0)", notes: "Notes for task \($0)", externalID: "x-\($0)")) }
        }
        #expect(try await service.importTasks(into: team, policy: .update, drafts: try drafts("Alpha"), as: owner).inserted == 600)
        let connection = try await PGConnection.connect(config)
        defer { Task { await connection.close() } }
        let pages: PGQuery = """
            SELECT number, (ctid::text::point)[0]::bigint AS page FROM tasks
             WHERE team_id = (SELECT id FROM teams WHERE key = \(team.rawValue)) ORDER BY number
            """
        let before = try await connection.query(pages).map { try $0.decode(Int64.self, "page") }
        #expect(try await service.importTasks(into: team, policy: .update, drafts: try drafts("Omega"), as: owner).updated == 600)
        let after = try await connection.query(pages).map { try $0.decode(Int64.self, "page") }
        #expect(before.count == 600 && after.count == 600)
        // At fillfactor 100 the bulk-loaded pages are full and every new version moves to
        // another page; other tests' writes to shared pages may take a little of the room.
        let stayed = zip(before, after).filter { $0 == $1 }.count
        #expect(stayed >= 570, "only \(stayed) of 600 updated tasks stayed on their page")
    }

    @Test("as the runtime role with another user's id set, every tenant table reads empty for a foreign team, and writes into it are refused")
    func rowLevelSecurity() async throws {
        let config = try await TestDatabases.shared.value
        let service = TaskService(store: try await SharedStore.store())
        let (team, owner, _) = try await makeTeam(service)
        let created = try await service.createTask(in: team, try TaskDraft(title: "Secret"), as: owner)
        let stranger = try await service.createUser(email: "stranger.\(UInt32.random(in: 0...UInt32.max))@example.com", displayName: "Stranger")
        let teamID = created.teamID.rawValue

        let connection = try await PGConnection.connect(config)
        defer { Task { await connection.close() } }
        for user in [stranger.id.rawValue, 0] {
            try await connection.withTransaction(settings: [("role", "taskbase_app"), ("taskbase.user_id", String(user))]) { tx in
                // No team filter on purpose: row-level security alone must hide the team.
                for table in ["teams", "memberships", "task_counters", "tasks", "task_history"] {
                    let column = table == "teams" ? "id" : "team_id"
                    let rows = try await tx.query("SELECT count(*) AS n FROM \(identifier: table) WHERE \(identifier: column) = \(teamID)")
                    #expect(try rows[0].decode(Int.self, "n") == 0, "\(table) shows a foreign team's rows to user \(user)")
                }
            }
            let refused = await #expect(throws: PGError.self) {
                try await connection.withTransaction(settings: [("role", "taskbase_app"), ("taskbase.user_id", String(user))]) { tx in
                    try await tx.execute(
                        """
                        INSERT INTO tasks (team_id, number, title, created_by, updated_by)
                        VALUES (\(teamID), 999, 'planted', \(stranger.id.rawValue), \(stranger.id.rawValue))
                        """)
                }
            }
            #expect(refused?.code == .insufficientPrivilege)
        }
        // The owner, through the same policies, sees the task.
        let visible = try await connection.withTransaction(settings: [
            ("role", "taskbase_app"), ("taskbase.user_id", String(created.createdBy.rawValue)),
        ]) { tx in
            try await tx.query("SELECT count(*) AS n FROM tasks WHERE team_id = \(teamID)")[0].decode(Int.self, "n")
        }
        #expect(visible == 1)
    }

    @Test("the runtime role has no DDL rights")
    func runtimeRoleHasNoDDL() async throws {
        let config = try await TestDatabases.shared.value
        let connection = try await PGConnection.connect(config)
        defer { Task { await connection.close() } }
        let error = await #expect(throws: PGError.self) {
            try await connection.withTransaction(settings: [("role", "taskbase_app")]) { tx in
                try await tx.execute("DROP TABLE tasks")
            }
        }
        #expect(error?.code == .insufficientPrivilege)
    }

    @Test("a change made through another store (another process's pool) reaches a listener")
    func changeFeedAcrossStores() async throws {
        let config = try await TestDatabases.shared.value
        let listenerService = TaskService(store: try await PostgresTaskStore.open(config: config, maxConnections: 2))
        let writerService = TaskService(store: try await PostgresTaskStore.open(config: config, maxConnections: 2))
        let (team, owner, _) = try await makeTeam(writerService)
        let stream = try await listenerService.changes(in: team, as: owner)
        let created = try await writerService.createTask(in: team, try TaskDraft(title: "Heard"), as: owner)
        var iterator = stream.makeAsyncIterator()
        guard case .change(let change)? = try await iterator.next() else {
            Issue.record("the feed ended or asked for a resync")
            return
        }
        #expect(change.key == created.key && change.kind == .created)
    }

    @Test("an edit naming an assignee removed while it waited for the team's lock is refused as no member, never a raw foreign-key error")
    func assigneeRemovedWhileTheEditWaits() async throws {
        try await TestDatabase.with(migrated: true, purpose: "assignee race") { database in
            let store = try await PostgresTaskStore.open(config: database.config, maxConnections: 2)
            let service = TaskService(store: store)
            let (team, owner, members) = try await makeTeam(service, members: 1)
            let task = try await service.createTask(in: team, try TaskDraft(title: "Contested"), as: owner)
            let teamID = try await service.team(team, as: owner).team.id.rawValue
            let ownerID = try await service.user(owner).id.rawValue, memberID = try await service.user(members[0]).id.rawValue
            try await PGConnection.with(database.config) { holder in
                // The removal holds the team's counter lock, as a removal does, while the edit
                // reads its facts (the member still a member) and waits for it.
                _ = try await holder.simpleQuery(unsafeSQL: "BEGIN")
                _ = try await holder.simpleQuery(unsafeSQL: "SELECT set_config('taskbase.user_id', '\(ownerID)', true)")
                _ = try await holder.simpleQuery(unsafeSQL: "SELECT 1 FROM task_counters WHERE team_id = \(teamID) FOR UPDATE")
                let edit = Task { await Outcome.of { _ = try await service.assignTask(task.key, to: members[0], as: owner) } }
                var waiting = false
                for _ in 0..<200 where !waiting {
                    let rows = try await holder.query("SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock'")
                    waiting = try rows[0].decode(Int64.self, "n") > 0
                    if !waiting { try await Task.sleep(for: .milliseconds(50)) }
                }
                #expect(waiting, "the edit waits for the removal's lock")
                _ = try await holder.simpleQuery(unsafeSQL: "DELETE FROM memberships WHERE team_id = \(teamID) AND user_id = \(memberID)")
                _ = try await holder.simpleQuery(unsafeSQL: "COMMIT")
                #expect(await edit.value == .invalid(field: "assignee"))
            }
            #expect(try await service.task(task.key, as: owner).assigneeID == nil)
        }
    }

    @Test("an import waiting on another first import of the same rows into an empty team finds them unchanged, never 'already exists'")
    func importWaitingOnAFirstImport() async throws {
        try await TestDatabase.with(migrated: true, purpose: "import race") { database in
            let store = try await PostgresTaskStore.open(config: database.config, maxConnections: 3)
            let service = TaskService(store: store)
            let (team, owner, _) = try await makeTeam(service)
            let rows = try (0..<20).map { try TaskImportDraft(try TaskDraft(title: "Row \($0)", externalID: "row-\($0)")) }
            // The first import takes the team's lock, then waits for its rows until released.
            let gate = ImportGate(rows)
            let first = Task {
                try await service.importTasks(
                    into: team, policy: .update, batches: AsyncStream(unfolding: { await gate.next() }), as: owner)
            }
            await gate.requested()
            let second = Task { try await service.importTasks(into: team, policy: .update, drafts: rows, as: owner) }
            try await PGConnection.with(database.config) { watcher in
                var waiting = false
                for _ in 0..<200 where !waiting {
                    let rows = try await watcher.query("SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock'")
                    waiting = try rows[0].decode(Int64.self, "n") > 0
                    if !waiting { try await Task.sleep(for: .milliseconds(50)) }
                }
                #expect(waiting, "the second import waits for the first one's lock")
            }
            await gate.release()
            #expect(try await first.value == ImportSummary(inserted: 20))
            // Once it read the team as empty in the statement that waited (its snapshot taken
            // before the first import committed) and failed on every external id.
            #expect(try await second.value == ImportSummary(unchanged: 20))
            #expect(try await service.listTasks(in: team, as: owner).tasks.map(\.key.number) == Array(1...20))
        }
    }
}

/// The rows of an import handed out once `release()` is called, telling `requested()` when the
/// import first asks for them.
private actor ImportGate {
    private var rows: [TaskImportDraft]?
    private var asked = false
    private var released = false
    private var askedWaiters: [CheckedContinuation<Void, Never>] = []
    private var releaseWaiters: [CheckedContinuation<Void, Never>] = []

    init(_ rows: [TaskImportDraft]) { self.rows = rows }

    func next() async -> [TaskImportDraft]? {
        asked = true
        askedWaiters.forEach { $0.resume() }
        askedWaiters = []
        if !released { await withCheckedContinuation { releaseWaiters.append($0) } }
        defer { rows = nil }
        return rows
    }

    func requested() async {
        if !asked { await withCheckedContinuation { askedWaiters.append($0) } }
    }

    func release() {
        released = true
        releaseWaiters.forEach { $0.resume() }
        releaseWaiters = []
    }
}

extension PostgresOnlyTests {
    @Test("a claim with no lease of its own (made before 0036, or taken over by an older taskserve) stands its quarter of an hour, not the lease")
    func unleasedClaimsKeepTheLongBound() async throws {
        let config = try await TestDatabases.shared.value
        let store = try await PostgresTaskStore.open(config: config, maxConnections: 2)
        let suffix = String(UInt32.random(in: 0...UInt32.max), radix: 36)
        let user = try await TaskService(store: store).createUser(email: "lease.\(suffix)@example.com", displayName: "Lease").id
        let keys = IdempotencyTimeline(store, user: user)
        let (first, other) = ([UInt8](repeating: 1, count: 32), [UInt8](repeating: 2, count: 32))
        // Claimed before the migration: no renewed_at. Its request may be an import still
        // running under a taskserve that renews nothing.
        try await PGConnection.with(config) { admin in
            try await admin.execute(
                """
                INSERT INTO idempotency_keys (user_id, key, fingerprint, claimed_at)
                VALUES (\(user.rawValue), 'before', \(Data(first)), \(keys.at(0)))
                """)
        }
        #expect(try await keys.claim("before", other, after: 60) == .running(fingerprint: first))
        #expect(try await keys.claim("before", other, after: 899) == .running(fingerprint: first))
        #expect(try await keys.claim("before", other, after: 901) == .claimed(at: keys.at(901)))
        // Taken over by an older taskserve, which sets claimed_at and leaves the last run's
        // renewed_at behind it.
        #expect(try await keys.claim("older", first) == .claimed(at: keys.at(0)))
        try await PGConnection.with(config) { admin in
            try await admin.execute("UPDATE idempotency_keys SET claimed_at = \(keys.at(100)) WHERE user_id = \(user.rawValue) AND key = 'older'")
        }
        #expect(try await keys.claim("older", other, after: 200) == .running(fingerprint: first))
        #expect(try await keys.claim("older", other, after: 1_001) == .claimed(at: keys.at(1_001)))
    }
}

/// A keyed run's writes as taskserve makes them, on a connection of the test's own, so that a
/// test can name the claim (or none) and hold the transaction open.
extension PostgresOnlyTests {
    /// A fixture over a Postgres store whose member has a task in the team and has claimed `key`
    /// at the timeline's second 0.
    static func memberClaiming(_ key: String, fingerprint: [UInt8]) async throws -> (f: ContractFixture, keys: IdempotencyTimeline) {
        let store = try await PostgresTaskStore.open(config: try await TestDatabases.shared.value, maxConnections: 2)
        let f = try await ContractFixture.make(store: store)
        _ = try await f.service.createTask(in: f.team, try TaskDraft(title: "Written by a keyed run"), as: f.member)
        let keys = IdempotencyTimeline(store, user: try await f.service.user(f.member).id)
        #expect(try await keys.claim(key, fingerprint) == .claimed(at: keys.at(0)))
        return (f, keys)
    }

    /// In the transaction open on `connection`, names the member's request running under `key`
    /// as the session setup does, with the claim time `claimedAt` (nil: none, as a taskserve
    /// older than 0037), and rewrites the team's tasks: the rows written.
    static func writeAsKeyedRun(on connection: PGConnection, _ f: ContractFixture, key: String, claimedAt: Date?) async throws -> Int {
        let member = try await f.service.user(f.member).id
        var setup: PGQuery = """
            SELECT set_config('role', 'taskbase_app', true), set_config('taskbase.user_id', \(member.rawValue)::text, true),
                   set_config('taskbase.idempotency_key', \(key), true)
            """
        if let claimedAt { setup.append(", set_config('taskbase.idempotency_claimed_at', \(claimedAt)::text, true)") }
        _ = try await connection.query(setup)
        return try await connection.execute("UPDATE tasks SET title = title WHERE team_id = (SELECT id FROM teams WHERE key = \(f.team.rawValue))")
    }

    @Test("a write naming its key with no claim time (a taskserve older than 0037, mid-upgrade) is noted on the claim as before, not refused")
    func keyWithoutClaimTimeNotedAsBefore() async throws {
        let fingerprint = [UInt8](repeating: 8, count: 32)
        let (f, keys) = try await Self.memberClaiming("older", fingerprint: fingerprint)
        try await PGConnection.with(try await TestDatabases.shared.value) { connection in
            try await connection.execute("BEGIN")
            #expect(try await Self.writeAsKeyedRun(on: connection, f, key: "older", claimedAt: nil) == 1)
            try await connection.execute("COMMIT")
        }
        try await keys.settle("older", fingerprint, nil)
        #expect(try await keys.claim("older", fingerprint, after: 1) == .tookEffect(fingerprint: fingerprint), "noted, as 0030 did")
    }

    @Test("a write that passed the fence holds its claim until it commits: a takeover meanwhile waits, then finds the request took effect")
    func fencedWriteHoldsItsClaim() async throws {
        let fingerprint = [UInt8](repeating: 9, count: 32)
        let (f, keys) = try await Self.memberClaiming("racing", fingerprint: fingerprint)
        let config = try await TestDatabases.shared.value
        try await PGConnection.with(config) { connection in
            // The run's write, checked and not yet committed...
            try await connection.execute("BEGIN")
            #expect(try await Self.writeAsKeyedRun(on: connection, f, key: "racing", claimedAt: keys.at(0)) == 1)
            // ...when its lease lapses: a retry's takeover waits for it, rather than slipping
            // between the check and the commit.
            let takeover = Task { try await keys.claim("racing", fingerprint, after: 31) }
            let holder = Int64(connection.backendPID)
            try await PGConnection.with(config) { watcher in
                try await waitUntil("the takeover to wait on the run's claim", limit: .seconds(30), every: .milliseconds(20)) {
                    try await watcher.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE \(holder) = ANY(pg_blocking_pids(pid))")[0]
                        .decode(Int.self, "n") >= 1
                }
            }
            try await connection.execute("COMMIT")
            #expect(try await takeover.value == .tookEffect(fingerprint: fingerprint), "the retry does not run it again")
        }
    }
}
