import Foundation
import Synchronization
import TaskCore
import TaskStoreContract
import TaskbaseTestSupport
import Testing

@Suite("The client's change feed against a real server")
struct EventFeedTests {
    /// How opening `team`'s feed as `session` ended; waited for from a task of its own, so a
    /// request that never completes fails the test instead of hanging the run.
    static func openingOutcome(_ session: any TaskSession, _ team: TeamKey) async throws -> Outcome {
        let outcome = Latest<Outcome>()
        Task { outcome.set(await Outcome.of { _ = try await session.changes(in: team) }) }
        try await waitUntil("the event stream's open to end", limit: .seconds(20)) { outcome.value != nil }
        return outcome.value!
    }

    @Test("a refused event stream ends at once with the refusal: not found for an outsider, 401 for a disabled user")
    func refusedStreamEnds() async throws {
        let host = try await Backend.clientOverMemory.host()
        let names = NameSource()
        let owner = try await host.service.createUser(email: "feed.o.\(names.next().lowercased())@example.com", displayName: "O")
        let outsider = try await host.service.createUser(email: "feed.x.\(names.next().lowercased())@example.com", displayName: "X")
        let disabled = try await host.service.createUser(email: "feed.d.\(names.next().lowercased())@example.com", displayName: "D")
        let team = try await host.open(owner).createTeam(key: "F" + names.next(), name: "Feed").key
        try await host.service.setRole(.member, for: .id(disabled.id), in: team, as: .id(owner.id))
        let disabledSession = try await host.open(disabled)
        _ = try await host.service.setUserDisabled(.id(disabled.id), true)
        for _ in 1...3 {
            #expect(try await Self.openingOutcome(try await host.open(outsider), team) == .notFound)
            #expect(try await Self.openingOutcome(disabledSession, team) == host.disabledRefusal)
        }
    }
}

/// The last value a task reported, read from another.
final class Latest<Value: Sendable>: Sendable {
    private let storage = Mutex<Value?>(nil)

    func set(_ value: Value) { storage.withLock { $0 = value } }
    var value: Value? { storage.withLock { $0 } }
}
