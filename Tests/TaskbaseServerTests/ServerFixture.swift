import APITokens
import Foundation
import TaskCore
import TaskStoreMemory
import TaskStorePG
import TaskbaseTestSupport
import Testing
@testable import TaskbaseServer
import TaskbaseWire

/// Which store a test's server runs over: both, every time.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case memory, postgres

    /// One PostgreSQL store for every test of the process, over the shared migrated database.
    /// Suites run in parallel on a shared, often loaded machine: a request waits up to 30 s for
    /// a connection rather than failing the test on a slow moment.
    static let postgresStore = Task<PostgresTaskStore, any Error> {
        try await PostgresTaskStore.open(config: try await TestDatabases.shared.value, maxConnections: 8, acquireTimeout: .seconds(30))
    }

    func make() async throws -> any TaskStore {
        switch self {
        case .memory: MemoryTaskStore()
        case .postgres: try await Self.postgresStore.value
        }
    }

    var testDescription: String { rawValue }
}

/// A taskserve in this process on 127.0.0.1 and a free port, over a store, with a cast:
/// `owner`, `member` and `viewer` of team `team`, and `outsider` in no team, each with a token.
struct ServerFixture: Sendable {
    static let secrets = TokenSecrets(key: "test key")

    let server: APIServer
    let service: TaskService
    let team: TeamKey
    let owner: User, member: User, viewer: User, outsider: User
    let tokens: [String: String]

    static func start(
        _ kind: StoreKind, limits: HTTPServerLimits = HTTPServerLimits(), heartbeat: Duration = .seconds(15), maxImportBytes: Int = 64 << 20,
        streamBufferBytes: Int = 256 << 10, streamPatience: Duration = .seconds(2), exportPageSize: Int = TaskQuery.limitRange.upperBound,
        maxExports: Int = 4, maxImports: Int = 4
    ) async throws -> ServerFixture {
        try await start(
            store: try await kind.make(), limits: limits, heartbeat: heartbeat, maxImportBytes: maxImportBytes, streamBufferBytes: streamBufferBytes,
            streamPatience: streamPatience, exportPageSize: exportPageSize, maxExports: maxExports, maxImports: maxImports)
    }

    static func start(
        store: any TaskStore = MemoryTaskStore(), limits: HTTPServerLimits = HTTPServerLimits(), heartbeat: Duration = .seconds(15),
        maxImportBytes: Int = 64 << 20, streamBufferBytes: Int = 256 << 10, streamPatience: Duration = .seconds(2),
        rateLimit: RateLimit? = nil, authFailureLimit: RateLimit? = APIOptions.defaultAuthFailureLimit, trustedProxies: TrustedProxies = .none,
        cors: CORSPolicy? = nil, compression: ResponseCompression? = .standard, metrics: APIMetrics? = nil, tls: HTTPServerTLS? = nil,
        host: String = "127.0.0.1", exportPageSize: Int = TaskQuery.limitRange.upperBound, maxExports: Int = 4, maxImports: Int = 4,
        identity: IdentityTokenVerifier? = nil, log: (@Sendable (String) -> Void)? = nil, serving servingStore: (any TaskStore)? = nil,
        clock: TaskClock = .system, afterStreamOpened: (@Sendable () async -> Void)? = nil, maxStreamsPerUser: Int = 16
    ) async throws -> ServerFixture {
        // Provisioned through `store`; served over `servingStore` when given (the runtime login,
        // as deployed: taskserve never holds the rights provisioning needs).
        let service = TaskService(store: store, clock: clock)
        let suffix = String(UInt32.random(in: 0..<UInt32.max), radix: 36).uppercased()
        var users: [User] = []
        var tokens: [String: String] = [:]
        for role in ["owner", "member", "viewer", "outsider"] {
            let user = try await service.createUser(email: "\(role).\(suffix.lowercased())@example.com", displayName: role.capitalized)
            let (secret, digest) = try secrets.generate()
            _ = try await service.createToken(for: .id(user.id), name: "test", lifetime: 3_600, digest: digest)
            tokens[role] = secret
            users.append(user)
        }
        let team = try await service.createTeam(key: "S" + String(suffix.prefix(8)), name: "Server tests", as: .id(users[0].id))
        try await service.setRole(.member, for: .email(users[1].email), in: team.key, as: .id(users[0].id))
        try await service.setRole(.viewer, for: .email(users[2].email), in: team.key, as: .id(users[0].id))
        var options = APIOptions(
            secrets: secrets, version: "test", heartbeat: heartbeat, streamBufferBytes: streamBufferBytes, maxImportBytes: maxImportBytes,
            streamPatience: streamPatience)
        options.rateLimit = rateLimit
        options.authFailureLimit = authFailureLimit
        options.trustedProxies = trustedProxies
        options.cors = cors
        options.compression = compression
        options.metrics = metrics
        options.exportPageSize = exportPageSize
        options.maxExports = maxExports
        options.maxImports = maxImports
        options.identity = identity
        options.afterStreamOpened = afterStreamOpened
        options.maxStreamsPerUser = maxStreamsPerUser
        let served = servingStore.map { TaskService(store: $0, clock: clock) } ?? service
        let server = try APIServer.start(service: served, options: options, host: host, limits: limits, tls: tls, log: log)
        return ServerFixture(
            server: server, service: service, team: team.key, owner: users[0], member: users[1], viewer: users[2], outsider: users[3], tokens: tokens)
    }

    /// A client acting as `role` ("owner", "member", "viewer", "outsider"), or anonymous.
    func client(_ role: String? = nil) -> HTTPClient {
        HTTPClient(baseURL: server.baseURL, token: role.flatMap { tokens[$0] })
    }

    func stop() async {
        await server.shutdown(grace: .seconds(2))
    }
}
