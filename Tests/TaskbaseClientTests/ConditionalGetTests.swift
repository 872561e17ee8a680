import APITokens
import Foundation
import Synchronization
import TaskCore
import TaskStoreMemory
import TaskbaseClient
import TaskbaseServer
import Testing

@Suite("The client's conditional GETs: a read that did not change comes back as 304 on the wire, whole to the caller")
struct ConditionalGetTests {
    /// The statuses of the GETs the server logged, by path, in order.
    final class Statuses: Sendable {
        private let lines = Mutex<[(path: String, status: Int)]>([])

        func record(_ line: String) {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                object["method"] as? String == "GET", let path = object["path"] as? String, let status = object["status"] as? Int
            else { return }
            lines.withLock { $0.append((path, status)) }
        }

        func of(_ path: String) -> [Int] { lines.withLock { $0.filter { $0.path == path }.map(\.status) } }
    }

    static let secrets = TokenSecrets(key: "conditional get test key")

    @Test("lists, the summary and /v1/me are asked for with the tag they came with; a task's own read is not")
    func unchangedReadsAre304() async throws {
        let statuses = Statuses()
        let service = TaskService(store: MemoryTaskStore())
        let server = try APIServer.start(service: service, options: APIOptions(secrets: Self.secrets, version: "test"), log: { statuses.record($0) })
        let owner = try await service.createUser(email: "owner@example.com", displayName: "Owner")
        let (secret, digest) = try Self.secrets.generate()
        _ = try await service.createToken(for: .id(owner.id), name: "test", lifetime: 3_600, digest: digest)
        let client = TaskbaseClient(ClientConfiguration(baseURL: URL(string: server.baseURL)!, token: secret, backoff: .milliseconds(20)))
        let team = try await service.createTeam(key: "COND", name: "Conditional", as: .id(owner.id)).key
        let first = try await client.createTask(in: team, try TaskDraft(title: "First"))

        let list = "/v1/teams/COND/tasks"
        let page = try await client.listTasks(in: team, TaskQuery())
        #expect(try await client.listTasks(in: team, TaskQuery()) == page, "the kept page, whole")
        #expect(try await client.listTasks(in: team, TaskQuery()) == page)
        #expect(statuses.of(list) == [200, 304, 304])
        // Another query is another URL, kept on its own.
        #expect(try await client.listTasks(in: team, TaskQuery(text: "first")).tasks.map { $0.key } == [first.key])
        #expect(statuses.of(list) == [200, 304, 304, 200])

        // A change makes the next read whole again, then unchanged once more.
        let second = try await client.createTask(in: team, try TaskDraft(title: "Second"))
        #expect(try await client.listTasks(in: team, TaskQuery()).tasks.map { $0.key } == [first.key, second.key])
        #expect(try await client.listTasks(in: team, TaskQuery()).tasks.map { $0.key } == [first.key, second.key])
        #expect(statuses.of(list).suffix(2) == [200, 304])

        let summary = try await client.summary(of: team)
        #expect(try await client.summary(of: team) == summary && summary.total == 2)
        #expect(statuses.of("/v1/teams/COND/summary") == [200, 304])
        #expect(try await client.me().id == owner.id)
        #expect(try await client.me().id == owner.id)
        #expect(statuses.of("/v1/me") == [200, 304])

        // A 304's headers replace the kept ones: page 1 of the history is the same two entries
        // after a third is made, but its Link to page 2 is new (the kept answer once hid it).
        _ = try await client.updateTask(first.key, try TaskChanges(notes: "edited"), expectedVersion: nil)
        let history = "/v1/tasks/\(first.key)/history"
        let before = try await client.history(of: first.key, HistoryQuery(limit: 2))
        #expect(before.entries.count == 2 && before.nextCursor == nil)
        _ = try await client.updateTask(first.key, try TaskChanges(notes: "edited again"), expectedVersion: nil)
        let after = try await client.history(of: first.key, HistoryQuery(limit: 2))
        #expect(statuses.of(history) == [200, 304])
        #expect(after.entries == before.entries && after.nextCursor != nil, "\(after)")
        let next: HistoryCursor = try #require(after.nextCursor)
        let rest = try await client.history(of: first.key, HistoryQuery(limit: 2, after: next))
        #expect(rest.entries.count == 1)

        // A task's strong tag (its version) is not sent back: its JSON can change without it.
        _ = try await client.task(first.key)
        _ = try await client.task(first.key)
        #expect(statuses.of("/v1/tasks/\(first.key)") == [200, 200])
        await server.shutdown()
    }
}
