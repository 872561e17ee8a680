import APITokens
import Foundation
import TaskCore
import TaskSessionContract
import TaskStoreContract
import TaskStoreMemory
import TaskStorePG
import TaskbaseClient
import TaskbaseServer
import TaskbaseTestSupport
import Testing

/// Where a session suite runs: the service in process over each store, and the HTTP client
/// against a real server (the API started in this process on 127.0.0.1, port 0) over each.
enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case memory = "service over the memory store"
    case postgres = "service over the Postgres store"
    case clientOverMemory = "client against a server over the memory store"
    case clientOverPostgres = "client against a server over the Postgres store"

    var testDescription: String { rawValue }

    /// A host: in process a fresh one (its own memory store, or a store over the test process's
    /// database); over HTTP one server per store for the whole run, since names never collide.
    func host() async throws -> SessionHost {
        switch self {
        case .memory: SessionHost.local(MemoryTaskStore())
        case .postgres: SessionHost.local(try await Self.postgresStore.value)
        case .clientOverMemory: try await Self.memoryServer.value
        case .clientOverPostgres: try await Self.postgresServer.value
        }
    }

    private static let postgresStore = Task<PostgresTaskStore, any Error> {
        try await PostgresTaskStore.open(config: TestDatabases.shared.value, acquireTimeout: .seconds(30))
    }

    private static let memoryServer = Task<SessionHost, any Error> { try serve(MemoryTaskStore()) }
    private static let postgresServer = Task<SessionHost, any Error> {
        // The whole suite runs in parallel on a loaded machine: a request waits up to 30 s for a
        // connection (as the server tests' shared store does) rather than failing on a slow moment.
        try serve(try await PostgresTaskStore.open(config: TestDatabases.createMigrated(purpose: "client_server"), acquireTimeout: .seconds(30)))
    }

    static let secrets = TokenSecrets(key: "client test key")

    /// A server over `store` and a host whose sessions are clients holding a token minted for each user.
    static func serve(_ store: any TaskStore) throws -> SessionHost {
        let service = TaskSessionContract.service(over: store)
        let server = try APIServer.start(service: service, options: APIOptions(secrets: secrets, version: "test", heartbeat: .seconds(1)))
        let baseURL = URL(string: server.baseURL)!
        let disabled = TaskbaseClientError.unauthorized("the token is unknown, expired or revoked, or its user is disabled")
        // The server's token cache learns of a disabled user by NOTIFY: a request in the
        // moment between the commit and the notification is still served.
        // Within moments; the bound is what a CI machine running the whole suite in parallel on
        // two cores needs for the ring's task to be scheduled (2 s was once too short there).
        // The check polls, so a quick refusal still ends it at once, and a lost ring fails it.
        return SessionHost(service: service, disabledRefusal: .failed(String(describing: disabled)), revocationDelay: .seconds(15)) { user in
            let (secret, digest) = try secrets.generate()
            _ = try await service.createToken(for: .id(user.id), name: "contract", lifetime: 3_600, digest: digest)
            return TaskbaseClient(ClientConfiguration(baseURL: baseURL, token: secret, backoff: .milliseconds(20)))
        }
    }
}
