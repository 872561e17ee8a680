import PGStore
import TaskCore
import TaskStoreContract
import TaskStorePG
import TaskbaseTestSupport
import Testing

@Suite("racing writers on one task", .timeLimit(.minutes(3)))
struct ConcurrentUpdateTests {
    /// What one writer saw.
    struct Tally: Sendable {
        var applied = 0
        var conflicts = 0
    }

    @Test("two users updating the same task at the same moment 1,000 times: every update is applied or refused as a conflict, none is lost")
    func racingUpdates() async throws {
        try await TestDatabase.with(migrated: true, purpose: "reliability") { database in
            let store = try await PostgresTaskStore.open(config: database.config, maxConnections: 4)
            let fixture = try await ContractFixture.make(store: store)
            let service = fixture.service
            let task = try await service.createTask(in: fixture.team, try TaskDraft(title: "Contended"), as: fixture.member)
            let rounds = 1_000

            let tallies = try await withThrowingTaskGroup(of: Tally.self) { group in
                for (name, user) in [("member", fixture.member), ("admin", fixture.admin)] {
                    group.addTask {
                        var tally = Tally()
                        for round in 0..<rounds {
                            let read = try await service.task(task.key, as: user)
                            do {
                                let written = try await service.updateTask(
                                    task.key, try TaskChanges(notes: "\(name) round \(round)"), expectedVersion: read.version, as: user)
                                #expect(written.version == read.version + 1)
                                tally.applied += 1
                            } catch TaskError.conflict(_, let current) {
                                #expect(current > read.version)
                                tally.conflicts += 1
                            }
                        }
                        return tally
                    }
                }
                return try await group.reduce(into: [Tally]()) { $0.append($1) }
            }

            let applied = tallies.map(\.applied).reduce(0, +)
            let conflicts = tallies.map(\.conflicts).reduce(0, +)
            let final = try await service.task(task.key, as: fixture.member)
            let history = try await service.history(of: task.key, as: fixture.member)
            #expect(applied + conflicts == 2 * rounds)
            #expect(Int64(applied) == final.version - 1)
            #expect(history.filter { $0.kind == .updated }.count == applied)
            #expect(history.map(\.version).sorted() == Array(1...final.version))
            #expect(applied >= rounds, "a conflict needs an update by the other writer in between, so at least half apply")
        }
    }
}
