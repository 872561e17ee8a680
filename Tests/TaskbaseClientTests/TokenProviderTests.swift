import APITokens
import Foundation
import Synchronization
import TaskCore
import TaskStoreMemory
import TaskbaseClient
import TaskbaseServer
import TaskbaseTestSupport
import Testing

@Suite("A client whose tokens come from a provider: asked before each request, once more for a fresh one after a 401")
struct TokenProviderTests {
    static let secrets = TokenSecrets(key: "token provider test key")

    /// Hands out `tokens` in turn: the current one, the next when asked to refresh (the last
    /// one again when there is no next). Remembers how it was asked.
    final class Provider: Sendable {
        private let state: Mutex<(tokens: [String], current: Int, asks: [Bool])>
        init(_ tokens: [String]) { state = Mutex((tokens, 0, [])) }

        func token(refresh: Bool) -> String {
            state.withLock { state in
                state.asks.append(refresh)
                if refresh { state.current = min(state.current + 1, state.tokens.count - 1) }
                return state.tokens[state.current]
            }
        }

        var asks: [Bool] { state.withLock { $0.asks } }
    }

    /// A server over a fresh memory store (event streams re-check their token each second), a
    /// user owning team `team`, and three tokens of theirs.
    struct Setup {
        let server: APIServer
        let service: TaskService
        let user: User
        let team: TeamKey
        let tokens: [(secret: String, id: TokenID)]

        init() async throws {
            service = TaskService(store: MemoryTaskStore())
            server = try APIServer.start(
                service: service, options: APIOptions(secrets: TokenProviderTests.secrets, version: "test", heartbeat: .seconds(1)))
            user = try await service.createUser(email: "provided@example.com", displayName: "Provided")
            team = try await service.createTeam(key: "PROV", name: "Provided", as: .id(user.id)).key
            var tokens: [(String, TokenID)] = []
            for _ in 1...3 {
                let (secret, digest) = try TokenProviderTests.secrets.generate()
                tokens.append((secret, try await service.createToken(for: .id(user.id), name: "provided", lifetime: 3_600, digest: digest).id))
            }
            self.tokens = tokens
        }

        func client(_ provider: Provider) -> TaskbaseClient {
            var configuration = ClientConfiguration(baseURL: URL(string: server.baseURL)!) { refresh in provider.token(refresh: refresh) }
            configuration.backoff = .milliseconds(20)
            return TaskbaseClient(configuration)
        }

        /// Revokes token `index` and waits until the server refuses it (its cache hears of a
        /// revocation through the store's doorbell, a moment after the commit).
        func revoke(_ index: Int) async throws {
            _ = try await service.revokeToken(tokens[index].id)
            let plain = TaskbaseClient(baseURL: URL(string: server.baseURL)!, token: tokens[index].secret)
            try await waitUntil("the server to refuse the revoked token", limit: .seconds(60)) {
                do {
                    _ = try await plain.me()
                    return false
                } catch TaskbaseClientError.unauthorized {
                    return true
                }
            }
        }
    }

    @Test("a refused token is replaced by a fresh one and the call sent again, once: a GET, and a POST that makes its task once")
    func refreshedOnRefusal() async throws {
        let s = try await Setup()
        let provider = Provider(s.tokens.map(\.secret))
        let client = s.client(provider)
        #expect(try await client.me().email == s.user.email)
        #expect(provider.asks == [false], "asked before the request, not asked to refresh")

        try await s.revoke(0)
        #expect(try await client.me().email == s.user.email)
        #expect(provider.asks == [false, false, true], "refused, then asked for a fresh token")

        try await s.revoke(1)
        let before = provider.asks.count
        let task = try await client.createTask(in: s.team, try TaskDraft(title: "Sent again"))
        // Refused, a fresh token, and the POST sent again (then the client may read more, such
        // as the names the task's users go by, with that token).
        let asked = Array(provider.asks[before...])
        #expect(Array(asked.prefix(2)) == [false, true] && asked.filter { $0 }.count == 1, "\(asked)")
        let made = try await s.service.listTasks(in: s.team, as: .id(s.user.id)).tasks
        #expect(made.map(\.id) == [task.id], "the refused POST did nothing; the one sent again made the task once")
        await s.server.shutdown(grace: .seconds(1))
    }

    @Test("a provider with nothing fresher: the 401 stands after one more try; what the provider throws, the call throws")
    func refusalStands() async throws {
        let s = try await Setup()
        try await s.revoke(0)
        let stale = Provider([s.tokens[0].secret])
        await #expect(throws: TaskbaseClientError.self) { _ = try await s.client(stale).me() }
        #expect(stale.asks == [false, true])

        struct SignedOut: Error, Equatable {}
        var configuration = ClientConfiguration(baseURL: URL(string: s.server.baseURL)!) { _ in throw SignedOut() }
        configuration.retries = 0
        await #expect(throws: SignedOut()) { _ = try await TaskbaseClient(configuration).me() }
        await s.server.shutdown(grace: .seconds(1))
    }

    @Test("an event feed whose token is revoked reconnects with a fresh one and goes on, losing no change")
    func feedReconnectsWithFreshToken() async throws {
        let s = try await Setup()
        let provider = Provider(s.tokens.map(\.secret))
        let changes = try await s.client(provider).changes(in: s.team)
        let before = try await s.service.createTask(in: s.team, try TaskDraft(title: "Before the revocation"), as: .id(s.user.id))
        try await s.revoke(0)
        // The server cuts the stream off at its next heartbeat; the feed reconnects, is refused,
        // and opens again with a fresh token.
        try await waitUntil("the feed to ask for a fresh token", limit: .seconds(60)) { provider.asks.contains(true) }
        let made = try await s.service.createTask(in: s.team, try TaskDraft(title: "After the revocation"), as: .id(s.user.id))
        let arrived = Latest<[TaskID]>()
        let reader = Task {
            var seen: [TaskID] = []
            for try await event in changes {
                if case .change(let change) = event {
                    seen.append(change.taskID)
                    arrived.set(seen)
                }
            }
        }
        try await waitUntil("both changes to arrive, the second on the reconnected feed", limit: .seconds(60)) { arrived.value?.count == 2 }
        reader.cancel()
        #expect(arrived.value == [before.id, made.id])
        #expect(provider.asks.filter { $0 }.count == 1, "\(provider.asks)")
        await s.server.shutdown(grace: .seconds(1))
    }
}
