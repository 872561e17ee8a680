import APITokens
import Foundation
import Synchronization
import PGStore
import TaskCore
import TaskStoreMemory
import TaskStorePG
import TaskbaseServer

/// One measured run: how many operations in how many seconds.
struct Measurement: Encodable {
    var workload: String
    var operations: Int
    var seconds: Double
    var operationsPerSecond: Double { Double(operations) / seconds }
    var extra: [String: String] = [:]

    enum CodingKeys: String, CodingKey { case workload, operations, seconds, operationsPerSecond = "ops_per_second", extra }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(workload, forKey: .workload)
        try container.encode(operations, forKey: .operations)
        try container.encode(seconds, forKey: .seconds)
        try container.encode(operationsPerSecond, forKey: .operationsPerSecond)
        try container.encode(extra, forKey: .extra)
    }
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// The workloads of issue 8, each through `TaskService` as the programs use it.
enum Workloads {
    static let owner: UserRef = .email(BenchSetup.ownerEmail)

    /// W1: `count` point reads by key on one connection.
    static func pointReads(config: PGConfig, count: Int) async throws -> Measurement {
        let service = TaskService(store: try await PostgresTaskStore.open(config: config, maxConnections: 1))
        let team = try TeamKey(BenchSetup.readTeam)
        for number in 1...200 { _ = try await service.task(TaskKey(team: team, number: Int64(number)), as: owner) }
        let started = ContinuousClock.now
        for index in 0..<count {
            _ = try await service.task(TaskKey(team: team, number: Int64(index % BenchSetup.readTeamSize + 1)), as: owner)
        }
        return Measurement(workload: "w1", operations: count, seconds: seconds(ContinuousClock.now - started))
    }

    /// W1's two statements, exactly as `PostgresTaskStore` sends them, replayed `count` times in one
    /// pipeline each through `PGConnection` alone: what the service layer, the store and the
    /// pool add on top of PGStore is the difference to W1 (a diagnostic beside the C reference).
    static func pointReadStatements(config: PGConfig, count: Int) async throws -> Measurement {
        let captured = try await StatementDump.capture(config: config, workload: "w1")
        let connection = try await PGConnection.connect(config)
        func statements(number: Int64) -> [PGQuery] {
            captured.map { query in
                var replay = PGQuery(unsafeSQL: query.sql)
                for value in query.parameterTexts {
                    switch value {
                    case nil: replay.bind(Int64?.none)
                    case String(StatementDump.numberMarker)?: replay.bind(number)
                    case let text?: replay.bind(text)
                    }
                }
                return replay
            }
        }
        // Built before the clock starts: the replay's own rebuilding from text is not PGStore's cost.
        let calls = (1...BenchSetup.readTeamSize).map { statements(number: Int64($0)) }
        for call in calls.prefix(200) { _ = try await connection.pipeline(call) }
        let started = ContinuousClock.now
        for index in 0..<count {
            let results = try await connection.pipeline(calls[index % calls.count])
            guard try results[1].get().count == 1 else { throw BenchError("W1 (PGStore alone) read no row") }
        }
        let elapsed = ContinuousClock.now - started
        await connection.close()
        return Measurement(workload: "w1-pgstore", operations: count, seconds: seconds(elapsed))
    }

    /// A fresh team for a write workload, owned by the bench owner.
    static func freshTeam(_ service: TaskService, prefix: String) async throws -> TeamKey {
        let key = prefix + String(UInt32.random(in: 0...UInt32.max), radix: 36).uppercased()
        return try await service.createTeam(key: String(key.prefix(10)), name: "Bench \(key)", as: owner).key
    }

    /// W2: `count` tasks created one call at a time.
    static func singleWrites(config: PGConfig, count: Int) async throws -> Measurement {
        let service = TaskService(store: try await PostgresTaskStore.open(config: config, maxConnections: 1))
        let team = try await freshTeam(service, prefix: "W2")
        let draft = try TaskDraft(title: "Bench task", notes: "Created by W2", priority: .high, category: "Bench")
        let started = ContinuousClock.now
        for _ in 0..<count { _ = try await service.createTask(in: team, draft, as: owner) }
        return Measurement(workload: "w2", operations: count, seconds: seconds(ContinuousClock.now - started))
    }

    /// W3: `count` tasks created through the batch path (the import port: COPY and one merge).
    static func batchWrites(config: PGConfig, count: Int) async throws -> Measurement {
        let service = TaskService(store: try await PostgresTaskStore.open(config: config, maxConnections: 1))
        let team = try await freshTeam(service, prefix: "W3")
        let drafts = try (0..<count).map { index in
            try TaskImportDraft(
                try TaskDraft(title: "Bench task", notes: "Created by W3", priority: .high, category: "Bench", externalID: "w3-\(index)"))
        }
        let started = ContinuousClock.now
        let summary = try await service.importTasks(into: team, policy: .update, drafts: drafts, as: owner)
        let elapsed = ContinuousClock.now - started
        guard summary.inserted == count else { throw BenchError("W3 inserted \(summary.inserted) of \(count)") }
        return Measurement(workload: "w3", operations: count, seconds: seconds(elapsed))
    }

    /// W5: `count` fetches of the first page of 50 open tasks of the big team, and the plan.
    static func listPages(config: PGConfig, count: Int) async throws -> Measurement {
        let recorder = StatementRecorder()
        let store = try await PostgresTaskStore.open(config: config, maxConnections: 1, statementObserver: recorder.record)
        let service = TaskService(store: store)
        let team = try TeamKey(BenchSetup.listTeam)
        let query = TaskQuery(statuses: [.open], category: .named("Area 3"), limit: 50)
        _ = try await service.listTasks(in: team, query, as: owner)
        let started = ContinuousClock.now
        for _ in 0..<count { _ = try await service.listTasks(in: team, query, as: owner) }
        let elapsed = ContinuousClock.now - started
        let statements = recorder.last
        let nodes = try await planNodes(config: config, setup: statements[0], query: statements[1])
        return Measurement(
            workload: "w5", operations: count, seconds: seconds(elapsed),
            extra: ["plan_nodes": nodes.joined(separator: ","), "sequential_scan": nodes.contains("Seq Scan") ? "yes" : "no"])
    }

    /// The node types of the plan PostgreSQL chooses for `query`, as the store runs it.
    static func planNodes(config: PGConfig, setup: PGQuery, query: PGQuery) async throws -> [String] {
        let connection = try await PGConnection.connect(config)
        defer { Task { await connection.close() } }
        return try await connection.withTransaction { tx in
            try await tx.execute(setup)
            var explain = PGQuery(unsafeSQL: "EXPLAIN (FORMAT JSON) ")
            explain.append(query)
            let plan = try await tx.query(explain)[0].decode(String.self, at: 0)
            var nodes: [String] = []
            var rest = Substring(plan)
            while let range = rest.range(of: "\"Node Type\": \"") {
                let tail = rest[range.upperBound...]
                if let end = tail.firstIndex(of: "\"") { nodes.append(String(tail[..<end])) }
                rest = tail
            }
            return nodes
        }
    }

    /// W6: `clients` tasks doing W1 over a pool of `pool` connections for `duration`. Like
    /// pgbench, whose rate leaves out connecting, the clock starts once every connection is open
    /// and has prepared its statements (a warm-up of 20 calls per client, as W1 has 200).
    static func concurrentReads(config: PGConfig, clients: Int, pool: Int, duration: Duration) async throws -> Measurement {
        let store = try await PostgresTaskStore.open(config: config, maxConnections: pool)
        let service = TaskService(store: store)
        let team = try TeamKey(BenchSetup.readTeam)
        let pgPool = store.source as? PGPool
        var servedBefore = 0
        let (total, elapsed) = try await concurrently(clients: clients, duration: duration) {
            servedBefore = pgPool?.statistics.servedPipelines ?? 0
        } call: { number in
            _ = try await service.task(TaskKey(team: team, number: Int64(number)), as: owner)
        }
        let served = (pgPool?.statistics.servedPipelines ?? 0) - servedBefore
        return Measurement(
            workload: "w6", operations: total, seconds: elapsed,
            extra: ["served_by_another_call": String(format: "%.2f", Double(served) / Double(max(total, 1)))])
    }
}

extension Workloads {
    /// Runs `call` from `clients` tasks, each over the read team's task numbers from its own
    /// start: 20 calls each to warm up (connections open, statements prepared), then as many as
    /// fit in `duration`. `clockStarts` runs between the two. Returns the timed calls and seconds.
    static func concurrently(
        clients: Int, duration: Duration, clockStarts: () -> Void = {}, call: @escaping @Sendable (_ number: Int) async throws -> Void
    ) async throws -> (calls: Int, seconds: Double) {
        func run(until stop: @escaping @Sendable (_ done: Int) -> Bool) async throws -> Int {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for client in 0..<clients {
                    group.addTask {
                        var done = 0
                        while !stop(done) {
                            try await call((client * 7919 + done) % BenchSetup.readTeamSize + 1)
                            done += 1
                        }
                        return done
                    }
                }
                return try await group.reduce(0, +)
            }
        }
        _ = try await run { done in done >= 20 }
        clockStarts()
        let deadline = ContinuousClock.now + duration
        let started = ContinuousClock.now
        let total = try await run { _ in ContinuousClock.now >= deadline }
        return (total, seconds(ContinuousClock.now - started))
    }
}

/// The HTTP workloads' in-process diagnostics: what W7 and W8 cost without the HTTP server.
enum RouteWorkloads {
    /// W7 without HTTP: `clients` tasks answering `GET /v1/tasks/{key}` through taskserve's own
    /// router (token check, the route's statements, the JSON document) for `duration`, over a
    /// pool of `pool` with taskserve's session limits; everything but libmicrohttpd and the socket.
    static func routerReads(config: PGConfig, clients: Int, pool: Int, duration: Duration, token: String) async throws -> Measurement {
        let store = try await PostgresTaskStore.open(
            config: config, maxConnections: pool, limits: PGSessionLimits(lockTimeout: .seconds(10), statementTimeout: .seconds(30)))
        let (router, verifier) = try await cachingRouter(TaskService(store: store), secrets: TokenSecrets.fromEnvironment())
        defer { verifier.stop() }
        let (total, elapsed) = try await Workloads.concurrently(clients: clients, duration: duration) { number in
            let request = HTTPRequest(
                method: "GET", path: "/v1/tasks/\(BenchSetup.readTeam)-\(number)", headers: ["authorization": "Bearer \(token)"])
            let status = await router.respond(to: request).response.status
            guard status == 200 else { throw BenchError("W7 (router) answered \(status) for \(request.path)") }
        }
        return Measurement(workload: "w7-router", operations: total, seconds: elapsed)
    }

    /// taskserve's router over `service`, its token verifier started and (within 10 s) caching,
    /// as a served request finds them; the caller stops the verifier.
    static func cachingRouter(_ service: TaskService, secrets: TokenSecrets) async throws -> (Router, TokenVerifier) {
        let verifier = TokenVerifier(service: service, secrets: secrets)
        verifier.start()
        let router = buildRouter(service: service, verifier: verifier, options: APIOptions(secrets: secrets))
        let waitUntil = ContinuousClock.now + .seconds(10)
        while !verifier.isCaching && ContinuousClock.now < waitUntil { try await Task.sleep(for: .milliseconds(20)) }
        return (router, verifier)
    }

    /// What the route itself costs, with no database and no HTTP: `count` answers to
    /// `GET /v1/tasks/{key}` through taskserve's router over the in-memory store, one after
    /// another on one task, beside `count` reads of the same tasks through `TaskService`
    /// alone. Their difference per call is the route's own work (token check, routing, the
    /// JSON document, the response's headers), the part of W7 that neither PostgreSQL nor the
    /// HTTP server does; on one core and no other process, it varies far less than W7.
    static func routeOverMemory(count: Int) async throws -> Measurement {
        let secrets = TokenSecrets(key: "route-memory bench")
        let service = TaskService(store: MemoryTaskStore())
        let owner = try await service.createUser(email: "route.owner@example.com", displayName: "Route owner")
        let (token, digest) = try secrets.generate()
        _ = try await service.createToken(for: .id(owner.id), name: "bench", lifetime: 3_600, digest: digest)
        let team = try await service.createTeam(key: "ROUTE", name: "Route bench", as: .id(owner.id))
        for number in 1...100 {
            _ = try await service.createTask(
                in: team.key, try TaskDraft(title: "Route task \(number)", notes: "Made by the route bench", category: "Bench"), as: .id(owner.id))
        }
        let (router, verifier) = try await cachingRouter(service, secrets: secrets)
        defer { verifier.stop() }
        let requests = (1...100).map { HTTPRequest(method: "GET", path: "/v1/tasks/ROUTE-\($0)", headers: ["authorization": "Bearer \(token)"]) }
        let keys = (1...100).map { TaskKey(team: team.key, number: Int64($0)) }
        func timed(_ call: (Int) async throws -> Void) async throws -> Double {
            for index in 0..<1_000 { try await call(index % 100) }  // warm-up: caches filled
            let started = ContinuousClock.now
            for index in 0..<count { try await call(index % 100) }
            return seconds(ContinuousClock.now - started)
        }
        let routed = try await timed { index in
            let status = await router.respond(to: requests[index]).response.status
            guard status == 200 else { throw BenchError("the route answered \(status) for \(requests[index].path)") }
        }
        let served = try await timed { index in _ = try await service.task(keys[index], as: .id(owner.id)) }
        return Measurement(
            workload: "w7-route-memory", operations: count, seconds: routed,
            extra: [
                "route_us_per_call": String(format: "%.2f", routed / Double(count) * 1e6),
                "service_us_per_call": String(format: "%.2f", served / Double(count) * 1e6),
                "route_only_us_per_call": String(format: "%.2f", (routed - served) / Double(count) * 1e6),
            ])
    }

    /// W8 without HTTP: `count` changes of a title through `TaskService` with the expected
    /// version, one at a time on one connection, over the patch team's first 100 tasks.
    static func updates(config: PGConfig, count: Int) async throws -> Measurement {
        let service = TaskService(store: try await PostgresTaskStore.open(config: config, maxConnections: 1))
        let team = try TeamKey(BenchSetup.patchTeam)
        var versions: [Int64: Int64] = [:]
        for number in Int64(1)...100 { versions[number] = try await service.task(TaskKey(team: team, number: number), as: Workloads.owner).version }
        let started = ContinuousClock.now
        for index in 0..<count {
            let number = Int64(index % 100 + 1)
            let changes = try TaskChanges(title: "Updated by W8 \(index)")
            let task = try await service.updateTask(
                TaskKey(team: team, number: number), changes, expectedVersion: versions[number], as: Workloads.owner)
            versions[number] = task.version
        }
        return Measurement(workload: "w8-update", operations: count, seconds: seconds(ContinuousClock.now - started))
    }
}

/// Keeps the statements of the last store call.
final class StatementRecorder: Sendable {
    private let storage = Mutex<[PGQuery]>([])
    var last: [PGQuery] { storage.withLock { $0 } }
    var record: @Sendable ([PGQuery]) -> Void { { [self] statements in storage.withLock { $0 = statements } } }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
