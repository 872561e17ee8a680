import Foundation
import PGStore
import TaskCore

/// Where `PostgresTaskStore` gets its connections: a pool in the programs, anything that lends a
/// connection to one task at a time.
public protocol PGConnectionSource: Sendable {
    /// Where the connections go (a listener opens its own connection there).
    var config: PGConfig { get }
    /// Lends a connection for the duration of `body`.
    func withConnection<T>(_ body: (PGConnection) async throws -> T) async throws -> T
    /// Runs `queries` in one round trip as one implicit transaction (`PGConnection.pipeline`).
    func pipeline(_ queries: [PGQuery]) async throws -> [PGPipelineResult]
}

extension PGConnectionSource {
    /// On a connection lent by `withConnection`; a pool runs waiting pipelines together.
    public func pipeline(_ queries: [PGQuery]) async throws -> [PGPipelineResult] {
        try await withConnection { connection in try await connection.pipeline(queries) }
    }
}

/// The PostgreSQL implementation of every TaskCore repository.
///
/// Each call is one transaction that first engages row-level security — it switches to the
/// runtime role and sets `taskbase.user_id` to the acting user with transaction-local
/// settings — and then does its work in as few statements as the work allows, with the
/// access facts gathered by the same statement that does the work. The rules themselves
/// (who may do what) are TaskCore's: the SQL only collects facts and refuses to write when
/// the role in `AccessRequirement.minimumRole` is not met.
public struct PostgresTaskStore: Sendable {
    /// Lends connections.
    public let source: any PGConnectionSource
    /// The role statements run as (`SET LOCAL ROLE`), so that row-level security applies
    /// even when the program logs in as the table owner; nil when the login role is already
    /// the runtime role.
    public let runtimeRole: String?
    /// Sees every pipelined batch of statements before it is sent: for tracing, and for the
    /// benchmark, which replays exactly these statements with its C reference.
    public let statementObserver: (@Sendable ([PGQuery]) -> Void)?
    /// Where the change feed LISTENs. A listening session must be a real server session, so
    /// behind PgBouncer in transaction mode this names the server directly
    /// (`TASKBASE_LISTEN_URL`); nil uses the source's configuration.
    public let listenConfig: PGConfig?
    /// Lock and statement timeouts and the vanished-client check, set for every transaction and
    /// statement with the session setup; nil leaves the server's settings alone.
    public let limits: PGSessionLimits?
    /// The one listening session behind every doorbell of this store and its copies.
    let doorbells: DoorbellHub

    /// A store over `source`, running statements as `runtimeRole`.
    public init(
        source: any PGConnectionSource, runtimeRole: String? = "taskbase_app",
        statementObserver: (@Sendable ([PGQuery]) -> Void)? = nil, listenConfig: PGConfig? = nil, limits: PGSessionLimits? = nil
    ) {
        self.source = source
        self.runtimeRole = runtimeRole
        self.statementObserver = statementObserver
        self.listenConfig = listenConfig
        self.limits = limits
        doorbells = DoorbellHub(config: listenConfig ?? source.config)
    }

    /// Runs `body` in a transaction acting as `actor` under the runtime role; with `runtime`
    /// false, with the login's own rights (the administrator's provisioning).
    @discardableResult
    func transaction<T>(
        as actor: UserRef?, runtime: Bool = true, isolation: PGIsolationLevel? = nil,
        _ body: (PGConnection) async throws -> T
    ) async throws -> T {
        let (role, limits) = (runtime ? runtimeRole : nil, limits)
        do {
            return try await source.withConnection { connection in
                try await connection.withTransaction(isolation: isolation) { tx in
                    try await tx.execute(Self.sessionSetup(actor: actor, role: role, limits: limits))
                    return try await body(tx)
                }
            }
        } catch let error as PGError {
            throw Self.translate(error)
        }
    }

    /// Runs one statement acting as `actor`, in one round trip: the session setup and the
    /// statement go out together in a pipeline, which PostgreSQL runs as one implicit
    /// transaction (the settings end with it).
    func statement(as actor: UserRef?, _ query: PGQuery) async throws -> PGRows {
        try await statements(as: actor, [query])[0]
    }

    /// Runs `queries` acting as `actor`, in one round trip: the session setup and the queries go
    /// out together in a pipeline ending in one sync, which PostgreSQL runs as one implicit
    /// transaction and commits at that sync without waiting on the client. So no lock the
    /// queries take outlives the round trip, even when this process stops mid-call. Each query
    /// is a statement of its own, with its own snapshot under READ COMMITTED. The rows of each.
    func statements(as actor: UserRef?, _ queries: [PGQuery]) async throws -> [PGRows] {
        let setup = Self.sessionSetup(actor: actor, role: runtimeRole, limits: limits)
        statementObserver?([setup] + queries)
        do {
            let results = try await source.pipeline([setup] + queries)
            if let failure = results.firstFailure { throw failure.error }
            return try results.dropFirst().map { try $0.get() }
        } catch let error as PGError {
            throw Self.translate(error)
        }
    }

    /// Switches to the runtime role and names the acting user, both for this transaction only.
    /// Every statement and transaction starts with it, so its text is made once for each form
    /// of actor, with and without a role (`MadeOnceText`), and a call binds only the values,
    /// in `writtenSessionSetup`'s order.
    static func sessionSetup(actor: UserRef?, role: String?, limits: PGSessionLimits? = nil) -> PGQuery {
        let idempotencyKey = IdempotentEffects.key
        return sessionSetupText.query(
            SetupShape(actor: UserForm(actor), setsRole: role != nil, setsLimits: limits != nil, namesIdempotencyKey: idempotencyKey != nil)
        ) {
            writtenSessionSetup(actor: actor, role: role, limits: limits)
        } bind: { query in
            bindUserMatch(actor, to: &query)
            if let role { query.bindNext(role) }
            for setting in limits?.settings ?? [] { query.bindNext(setting.value) }
            if let idempotencyKey {
                query.bindNext(idempotencyKey.key)
                query.bindNext(idempotencyKey.claimedAt)
            }
        }
    }

    /// What the session setup's text depends on.
    struct SetupShape: Hashable, Sendable {
        var actor: UserForm
        var setsRole: Bool
        var setsLimits: Bool
        var namesIdempotencyKey: Bool
    }

    static let sessionSetupText = MadeOnceText<SetupShape>()

    /// The session setup written out: the one source of its text, which `sessionSetup` reuses
    /// (a test holds the two to the same text and values).
    /// The acting user is named by id as given (an unknown id sees nothing), and by email
    /// through `taskbase_user_id_for_email`, since `users` is not readable before a user is set.
    static func writtenSessionSetup(actor: UserRef?, role: String?, limits: PGSessionLimits? = nil) -> PGQuery {
        var query: PGQuery = "SELECT set_config('taskbase.user_id', \(actorIDText(actor)), true)"
        // What every statement relies on, whatever the login's own session defaults say: any
        // role may give itself defaults (`ALTER ROLE ... SET`) that its later sessions start
        // with, and a stolen runtime login that left `search_path` without the schema, or
        // `row_security` off, stopped every program for good (docs/security.md). Per
        // transaction, as the limits, so it holds behind PgBouncer too.
        query.append(", set_config('search_path', 'public', true), set_config('row_security', 'on', true)")
        if let role { query.append(", set_config('role', \(role), true)") }
        for setting in limits?.settings ?? [] {
            query.append(", set_config('\(unsafeSQL: setting.name)', \(setting.value), true)")
        }
        // The key of the request running, if it has one: a write notes on it that the request
        // took effect, in the write's own transaction (migration 0030), and is refused when the
        // claim the run made (its time) is no longer the key's (0037). The time as text, read
        // back by the trigger in the same transaction, so under the same DateStyle and TimeZone.
        if let running = IdempotentEffects.key {
            query.append(", set_config('taskbase.idempotency_key', \(running.key), true)")
            query.append(", set_config('taskbase.idempotency_claimed_at', \(running.claimedAt)::text, true)")
        }
        return query
    }

    /// The acting user's id as text for the session setup, binding what `bindUserMatch` binds.
    static func actorIDText(_ ref: UserRef?) -> PGQuery {
        switch ref {
        case .id(let id): "\(id.rawValue)::text"
        case .email(let email): "coalesce(public.taskbase_user_id_for_email(\(emailKey(email)))::text, '')"
        case nil: "''"
        }
    }

    /// The condition that finds the user `ref` names in the users table aliased `alias`:
    /// `u.id = $n` for an id, `lower(u.email) = $n` for an email (normalized), `false` for none.
    /// One indexed condition per shape: a prepared statement with `id = $1 OR lower(email) = $2`
    /// gets a generic plan that OR-s two bitmap index scans on every call.
    static func userMatch(_ alias: String, _ ref: UserRef?) -> PGQuery {
        switch ref {
        case .id(let id): "\(unsafeSQL: alias).id = \(id.rawValue)"
        case .email(let email): "lower(\(unsafeSQL: alias).email) = \(emailKey(email))"
        case nil: "false"
        }
    }

    /// Binds the value `userMatch` binds for `ref` (the id, the normalized email, or none), to
    /// text made once with `userMatch` (`MadeOnceText`).
    static func bindUserMatch(_ ref: UserRef?, to query: inout PGQuery) {
        switch ref {
        case .id(let id): query.bindNext(id.rawValue)
        case .email(let email): query.bindNext(emailKey(email))
        case nil: break
        }
    }

    /// The key an address is looked up by. One holding a NUL names nobody (no stored address
    /// can hold one, and libpq cannot send it: the lookup failed with "contains a NUL byte"
    /// where the memory store found no such user), so it is looked up as a blank, which no
    /// address is.
    static func emailKey(_ email: String) -> String {
        let key = UserFields.normalizedEmailKey(email)
        return key.contains("\u{0}") ? " " : key
    }

    /// The SQLSTATE of a write refused because its run's idempotency claim was taken over
    /// (migration 0037): a class of its own, neither a refusal of the caller (42501) nor a
    /// failure the store retries (40001, 40P01).
    static let idempotencyClaimTakenOver = "TB409"

    /// Turns the database's refusals that TaskCore has words for into `TaskError`s (and a
    /// write of a run that lost its idempotency claim into `IdempotencyClaimTakenOver`).
    static func translate(_ error: PGError) -> any Error {
        switch (error.code, error.constraint) {
        case (.uniqueViolation, "users_email_key"?):
            return TaskError.alreadyExists(what: "user \(quotedValue(in: error.detail) ?? "with that email")")
        case (.uniqueViolation, "teams_key_key"?):
            return TaskError.alreadyExists(what: "team \(quotedValue(in: error.detail) ?? "with that key")")
        case (.checkViolation, "teams_keep_an_enabled_owner"?):
            // A removal's refusal names the user instead (`setRole`): the trigger cannot tell them apart.
            return TaskError.validation(field: OwnerRule.field(removing: false), reason: "\(error.message); \(OwnerRule.nextStep)")
        case _ where error.sqlState == idempotencyClaimTakenOver:
            return IdempotencyClaimTakenOver(key: IdempotentEffects.key?.key ?? "")
        case (.uniqueViolation, "tasks_external_id_key"?):
            // Under row-level security the server leaves the key's value out of its detail;
            // task writes name it with `namingExternalIDHolder`.
            return TaskError.alreadyExists(
                what: quotedValue(in: error.detail).map { "external id \"\($0)\" in the team" } ?? "a task with that external id in the team")
        default:
            return error
        }
    }

    /// Runs a task write that sets `externalID` in `team`; when the team's unique key refuses it,
    /// the refusal names the id and the task holding it, as the memory store's does.
    func namingExternalIDHolder<T>(_ externalID: String?, in team: TeamKey, as actor: UserRef, _ write: () async throws -> T) async throws -> T {
        do {
            return try await write()
        } catch TaskError.alreadyExists(let what) where externalID != nil && what.hasPrefix("a task with that external id") {
            let rows = try? await statement(
                as: actor,
                """
                SELECT t.number FROM teams tm JOIN tasks t ON t.team_id = tm.id
                 WHERE tm.key = \(team.rawValue) AND t.external_id = \(externalID)
                """)
            let holder = (try? rows?.first?.decode(Int64.self, "number")).flatMap { $0 }.map { TaskKey(team: team, number: $0) }
            throw TaskError.externalIDTaken(externalID ?? "", in: team, by: holder)
        }
    }

    /// The value part of a detail like `Key (lower(email))=(a@b.c) already exists.`
    private static func quotedValue(in detail: String?) -> String? {
        guard let detail, let open = detail.range(of: ")=("), let close = detail.range(of: ")", range: open.upperBound..<detail.endIndex) else {
            return nil
        }
        let value = String(detail[open.upperBound..<close.lowerBound])
        return value.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? value
    }
}
