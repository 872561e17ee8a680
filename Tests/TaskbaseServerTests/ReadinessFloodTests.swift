import Foundation
import TaskStorePG
import TaskbaseTestSupport
import Testing

@Suite("/readyz under a flood")
struct ReadinessFloodTests {
    @Test("200 probes without a token from four connections cost the database one check per second, not one each")
    func probesShareChecks() async throws {
        try await TestDatabase.with(migrated: true, purpose: "readiness flood") { database in
            try await StatementLog.with(database) { log in
                let f = try await ServerFixture.start(store: try await PostgresTaskStore.open(config: database.config, maxConnections: 4))
                let anonymous = f.client()
                let start = try await log.mark()
                let started = ContinuousClock.now
                // The attack: probes back to back. Each one ran the schema check before.
                let statuses = try await withThrowingTaskGroup(of: [Int].self) { group in
                    for _ in 0..<4 {
                        group.addTask {
                            var statuses: [Int] = []
                            for _ in 0..<50 { statuses.append(try await anonymous.get("/readyz").status) }
                            return statuses
                        }
                    }
                    return try await group.reduce(into: []) { $0 += $1 }
                }
                let took = ContinuousClock.now - started
                let checks = try await log.statements(since: start).filter { $0.contains("max(version) AS version FROM schema_migrations") }
                #expect(statuses.count == 200 && statuses.allSatisfy { $0 == 200 }, "\(Set(statuses))")
                // One check per started second of the flood, at most.
                let allowed = Int(took.components.seconds) + 1
                #expect(checks.count >= 1 && checks.count <= allowed, "\(checks.count) checks in \(took)")
                await f.stop()
            }
        }
    }
}
