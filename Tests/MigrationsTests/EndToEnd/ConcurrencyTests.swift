import Foundation
import Migrations
import PGStore
import TaskbaseTestSupport
import Testing

extension EndToEnd {
    @Suite("Concurrent runners")
    struct ConcurrencyTests {
        @Test(
            "runners started together (separate processes) apply each migration once; all exit 0; the others find it up to date", arguments: [2, 5])
        func simultaneousRunners(count: Int) async throws {
            let folder = try MigrationFolder.project()
            try folder.write(MigrationFolder.laterName(1, "slow"), "SELECT pg_sleep(0.5);\nCREATE TABLE slow_marker (id int);\n")
            defer { folder.delete() }
            try await TestDatabase.with(migrated: false, purpose: "migrations") { database in
                let outcomes = try await withThrowingTaskGroup(of: TaskMigrateProcess.Outcome.self) { group in
                    for _ in 0..<count {
                        group.addTask { try await TaskMigrateProcess.run(["up"], databaseURL: database.url, folder: folder) }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(outcomes.allSatisfy { $0.status == 0 }, "\(outcomes.map(\.stderr))")
                #expect(outcomes.filter { $0.stdout.contains("applied 0001_core_schema.sql") }.count == 1)
                #expect(outcomes.filter { $0.stdout.contains("up to date at version \(MigrationFolder.laterVersion(1))") }.count == count - 1)
                #expect(try await database.appliedVersions() == MigrationFolder.projectVersions + [MigrationFolder.laterVersion(1)])
            }
        }

        @Test("a runner waiting on the migration lock gives up after --lock-wait with exit 5, naming the holder")
        func lockWaitExpires() async throws {
            let folder = try MigrationFolder(["0001_a.sql": "CREATE TABLE a (id int);\n"])
            defer { folder.delete() }
            try await TestDatabase.with(migrated: false, purpose: "migrations") { database in
                try await database.withConnection { holder in
                    _ = try await holder.query("SELECT pg_advisory_lock(\(Int64(0x7461_736B)))")
                    let outcome = try await TaskMigrateProcess.run(["up", "--lock-wait", "600ms"], databaseURL: database.url, folder: folder)
                    #expect(outcome.status == 5)
                    #expect(outcome.stderr.contains("held by pid \(holder.backendPID)"), "\(outcome.stderr)")
                }
                #expect(try await database.appliedVersions().isEmpty)
            }
        }
    }
}
