import Foundation
import TaskCore
import TaskStoreContract
import Testing

/// The checks every `TaskSession` must pass: the in-process session over each store, and the
/// HTTP client against a real server over each store, answer to the same text.
public enum TaskSessionContract {
    /// All of them, grouped by concern.
    public static var checks: [SessionCheck] {
        permissionChecks + errorChecks + userRefChecks + taskChecks + listChecks + teamChecks + feedChecks + peopleChecks
    }

    /// The service a session host runs for the contract: over `store`, with a clock that
    /// starts at noon on `ContractFixture.today` and ticks a millisecond per reading.
    public static func service(over store: any TaskStore) -> TaskService {
        TaskService(store: store, clock: TickingClock(start: ContractFixture.start).clock)
    }
}

/// Where a contract check gets its sessions: the operator's service (users are provisioned
/// in process, as `taskctl` does) and a way to sign in as one of its users.
public struct SessionHost: Sendable {
    /// The service behind the sessions, made with `TaskSessionContract.service(over:)`.
    public let service: TaskService
    /// A session acting as `user`: in process, or a client holding a token minted for them.
    public let open: @Sendable (User) async throws -> any TaskSession
    /// How a disabled user's session is refused: `permissionDenied` in process; over HTTP the
    /// server stops authenticating the user's tokens (401), revealing nothing about the account.
    public let disabledRefusal: Outcome
    /// How long the host may take to refuse a user just disabled: zero in process; a server
    /// that caches verified tokens learns of it by a notification, within moments.
    public let revocationDelay: Duration

    /// A host whose sessions `open` makes over `service`.
    public init(
        service: TaskService, disabledRefusal: Outcome = .denied, revocationDelay: Duration = .zero,
        open: @escaping @Sendable (User) async throws -> any TaskSession
    ) {
        self.service = service
        self.open = open
        self.disabledRefusal = disabledRefusal
        self.revocationDelay = revocationDelay
    }

    /// In-process sessions over `store`.
    public static func local(_ store: any TaskStore) -> SessionHost {
        let service = TaskSessionContract.service(over: store)
        return SessionHost(service: service) { service.session(as: .id($0.id)) }
    }
}

/// One named check of the session contract.
public struct SessionCheck: Sendable, CustomTestStringConvertible {
    /// What the check specifies.
    public let name: String
    let body: @Sendable (SessionFixture) async throws -> Void

    /// A check named `name` whose `body` exercises a fixture.
    public init(_ name: String, _ body: @escaping @Sendable (SessionFixture) async throws -> Void) {
        self.name = name
        self.body = body
    }

    /// Shows the check's name as the test case name.
    public var testDescription: String { name }

    /// Runs the check with sessions from `host`; names are unique, so checks may share a database.
    public func run(on host: SessionHost) async throws {
        try await body(try await SessionFixture.make(host))
    }
}
