import APITokens
import Foundation
import Synchronization
import TaskCore
import TaskStoreContract
import TaskStorePG
import TaskbaseClient
import TaskbaseTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("The client's change feed against a real server", .serialized)
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
        try await host.service.setRole(.member, for: .email(disabled.email), in: team, as: .id(owner.id))
        let disabledSession = try await host.open(disabled)
        _ = try await host.service.setUserDisabled(.id(disabled.id), true)
        for _ in 1...3 {
            #expect(try await Self.openingOutcome(try await host.open(outsider), team) == .notFound)
            #expect(try await Self.openingOutcome(disabledSession, team) == host.disabledRefusal)
        }
    }

    /// A `taskserve` process over the test database, stopped and started again on one port:
    /// `TASKBASE_CLIENT_RESTART_PORT`, else `TASKBASE_PG_PORT` + 70 (inside the block a
    /// checkout's servers use, below the kernel's range for outgoing ports).
    struct RestartableServer {
        static let tokenKey = "client restart test key"
        static var port: Int {
            let environment = ProcessInfo.processInfo.environment
            if let port = environment["TASKBASE_CLIENT_RESTART_PORT"].flatMap(Int.init) { return port }
            return (Int(environment["TASKBASE_PG_PORT"] ?? "") ?? 25432) + 70
        }

        let environment: [String: String]
        let service: TaskService
        private(set) var process: ServeProcess?

        init() async throws {
            let config = try await TestDatabases.shared.value
            var environment = TestDatabases.childEnvironment(config)
            environment["TASKBASE_TOKEN_KEY"] = Self.tokenKey
            environment["PATH"] = ProcessInfo.processInfo.environment["PATH"]
            self.environment = environment
            service = TaskService(store: try await PostgresTaskStore.open(config: config))
        }

        /// Starts taskserve on the port (its last instance stopped first).
        mutating func start() async throws {
            process = try await ServeProcess(environment: environment, listen: "127.0.0.1:\(Self.port)", arguments: ["--heartbeat", "1"])
        }

        /// Stops it as an operator does (SIGTERM) and checks it exited cleanly.
        mutating func stop() async throws {
            let status = try await process?.stop()
            #expect(status == 0, "taskserve exited \(status.map(String.init) ?? "-"): \(process?.log ?? "")")
            process = nil
        }

        /// A client of the port, as `user`, patient enough to outlast a restart.
        func client(as user: User) async throws -> TaskbaseClient {
            let (secret, digest) = try TokenSecrets(key: Self.tokenKey).generate()
            _ = try await service.createToken(for: .id(user.id), name: "restart", lifetime: 3_600, digest: digest)
            let configuration = ClientConfiguration(
                baseURL: URL(string: "http://127.0.0.1:\(Self.port)")!, token: secret, requestTimeout: .seconds(30), backoff: .milliseconds(50),
                maximumBackoff: .milliseconds(250), streamIdleTimeout: .seconds(30))
            return TaskbaseClient(configuration)
        }
    }

    /// An owner watching a new team through the client, and a member writing through the service.
    static func stage(_ server: RestartableServer) async throws -> (watcher: TaskbaseClient, writer: User, team: TeamKey) {
        let names = NameSource()
        let owner = try await server.service.createUser(email: "restart.o.\(names.next().lowercased())@example.com", displayName: "Owner")
        let writer = try await server.service.createUser(email: "restart.w.\(names.next().lowercased())@example.com", displayName: "Writer")
        let team = try await server.service.createTeam(key: "R" + names.next(), name: "Restart", as: .id(owner.id)).key
        _ = try await server.service.setRole(.member, for: .email(writer.email), in: team, as: .id(owner.id))
        return (try await server.client(as: owner), writer, team)
    }

    @Test("a feed across a taskserve restart delivers every change made while it was down, each once, in order")
    func resumesAcrossRestart() async throws {
        var server = try await RestartableServer()
        try await server.start()
        let (watcher, writer, team) = try await Self.stage(server)
        let service = server.service
        let stream = try await watcher.changes(in: team)
        var events = stream.makeAsyncIterator()
        let first = try await service.createTask(in: team, try TaskDraft(title: "Before"), as: .id(writer.id))
        #expect(try await events.next()?.sequence != nil)

        try await server.stop()
        let down = try await service.createTask(in: team, try TaskDraft(title: "While down"), as: .id(writer.id))
        _ = try await service.updateTask(first.key, try TaskChanges(notes: "edited while down"), expectedVersion: 1, as: .id(writer.id))
        try await service.deleteTask(down.key, expectedVersion: 1, as: .id(writer.id))
        try await server.start()
        let after = try await service.createTask(in: team, try TaskDraft(title: "After"), as: .id(writer.id))

        var received: [TaskChange] = []
        while received.count < 4, let event = try await events.next() {
            guard case .change(let change) = event else {
                Issue.record("expected changes only, got \(event)")
                break
            }
            received.append(change)
        }
        let logged = try await TaskStoreContract.collect(5, from: try await service.changes(in: team, after: 0, as: .id(writer.id))).changes
        try #require(logged.count == 5, "\(logged)")
        #expect(received == Array(logged.dropFirst()))
        #expect(received.map(\.key) == [down.key, first.key, down.key, after.key])
        #expect(received.map(\.kind) == [.created, .updated, .deleted, .created])
        #expect(received.map(\.sequence) == Array(logged[1].sequence...logged[1].sequence + 3))
        try await server.stop()
    }

    @Test("a feed whose server stops before its first event still delivers what was made while it was down")
    func resumesBeforeFirstEvent() async throws {
        var server = try await RestartableServer()
        try await server.start()
        let (watcher, writer, team) = try await Self.stage(server)
        let service = server.service
        let changes = try await watcher.changes(in: team)
        // No event has come yet: only the stream's starting place, which the feed must keep.
        try await server.stop()
        let down = try await service.createTask(in: team, try TaskDraft(title: "While down"), as: .id(writer.id))
        try await server.start()
        let after = try await service.createTask(in: team, try TaskDraft(title: "After"), as: .id(writer.id))
        let received = Latest<[TaskKey]>()
        let reader = Task {
            var keys: [TaskKey] = []
            for try await event in changes {
                if case .change(let change) = event { keys.append(change.key) }
                received.set(keys)
            }
        }
        // "After" comes either way; a feed that lost its place has nothing before it.
        try await waitUntil("the change made after the restart", limit: .seconds(60)) { received.value?.contains(after.key) == true }
        reader.cancel()
        #expect(received.value == [down.key, after.key], "the change made while the server was down was lost")
        try await server.stop()
    }

    @Test("a bulk import made while taskserve was down comes to a resumed feed as one resync, then changes continue")
    func resyncAcrossRestart() async throws {
        var server = try await RestartableServer()
        try await server.start()
        let (watcher, writer, team) = try await Self.stage(server)
        let service = server.service
        var events = try await watcher.changes(in: team).makeAsyncIterator()
        _ = try await service.createTask(in: team, try TaskDraft(title: "Before"), as: .id(writer.id))
        #expect(try await events.next()?.sequence != nil)

        try await server.stop()
        // Past the threshold an import is logged as one bulk entry, which no feed can replay.
        let count = TaskChange.bulkImportThreshold + 1
        let drafts = try (1...count).map { try TaskImportDraft(try TaskDraft(title: "Imported \($0)", externalID: "ext-\($0)")) }
        _ = try await service.importTasks(into: team, policy: .skip, drafts: drafts, as: .id(writer.id))
        try await server.start()
        let after = try await service.createTask(in: team, try TaskDraft(title: "After"), as: .id(writer.id))

        let resync = try await events.next()
        guard case .resync(let through) = resync else {
            Issue.record("expected a resync, got \(String(describing: resync))")
            return
        }
        guard case .change(let change) = try await events.next() else {
            Issue.record("expected the change after the import")
            return
        }
        #expect(change.key == after.key && change.sequence == through + 1)
        #expect(try await service.summary(of: team, as: .id(writer.id)).total == count + 2)
        try await server.stop()
    }
}

/// The last value a task reported, read from another.
final class Latest<Value: Sendable>: Sendable {
    private let storage = Mutex<Value?>(nil)

    func set(_ value: Value) { storage.withLock { $0 = value } }
    var value: Value? { storage.withLock { $0 } }
}
