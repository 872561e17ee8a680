import Foundation
import PGStore
import Synchronization
import TaskCore
import Testing
@testable import TaskStorePG
import TaskbaseTestSupport

/// How the server plans the statements the store sends. The statement cache prepares them, and
/// after five runs PostgreSQL may keep one generic plan for every later run: that plan must
/// find the acting user by one index condition, whatever form the user is given in.
@Suite("Postgres store statement plans")
struct StatementPlanTests {
    /// The node types of `query`'s generic plan (sequential scans off, so that a small test
    /// table still shows which index conditions the plan can use).
    static func genericPlanNodes(_ query: PGQuery, config: PGConfig) async throws -> [String] {
        let connection = try await PGConnection.connect(config)
        defer { Task { await connection.close() } }
        // Test data only: the parameters become literals of EXECUTE.
        let arguments = query.parameterTexts.map { text in text.map { "'" + $0.replacingOccurrences(of: "'", with: "''") + "'" } ?? "NULL" }
        return try await connection.withTransaction { tx in
            try await tx.execute("SET LOCAL plan_cache_mode = force_generic_plan")
            try await tx.execute("SET LOCAL enable_seqscan = off")
            try await tx.execute(PGQuery(unsafeSQL: "PREPARE plan_probe AS " + query.sql))
            let plan = try await tx.query(PGQuery(unsafeSQL: "EXPLAIN (FORMAT JSON) EXECUTE plan_probe(\(arguments.joined(separator: ", ")))"))[0]
                .decode(String.self, at: 0)
            try await tx.execute("DEALLOCATE plan_probe")
            return plan.components(separatedBy: "\"Node Type\": \"").dropFirst().compactMap { $0.split(separator: "\"").first.map(String.init) }
        }
    }

    @Test("a point read, by an actor given by email or by id, plans the user lookup as one index condition (no BitmapOr, no sequential scan)")
    func pointReadPlans() async throws {
        let config = try await TestDatabases.shared.value
        let captured = Mutex<[PGQuery]>([])
        let store = try await PostgresTaskStore.open(
            config: config, maxConnections: 1, statementObserver: { queries in captured.withLock { $0 = queries } })
        let service = TaskService(store: store)
        let suffix = String(UInt32.random(in: 0...UInt32.max), radix: 36)
        let owner = try await service.createUser(email: "plan.\(suffix)@example.com", displayName: "Plan")
        let team = try await service.createTeam(key: "PL" + suffix.uppercased().prefix(8), name: "Plans", as: .id(owner.id))
        let task = try await service.createTask(in: team.key, try TaskDraft(title: "Planned"), as: .id(owner.id))
        for actor in [UserRef.email(owner.email), .id(owner.id)] {
            _ = try await service.task(task.key, as: actor)
            let statements = captured.withLock { $0 }
            #expect(statements.count == 2)
            for statement in statements {
                let nodes = try await Self.genericPlanNodes(statement, config: config)
                #expect(!nodes.isEmpty)
                #expect(!nodes.contains("BitmapOr"), "\(actor): \(nodes)")
                #expect(!nodes.contains("Seq Scan"), "\(actor): \(nodes)")
            }
        }
    }
}
