import CLibPQ
import Foundation
import Glibc
import Synchronization

/// One PostgreSQL session over libpq in non-blocking mode.
///
/// Every call is `async` and never blocks one of Swift's cooperative threads for long: after
/// sending, it polls the socket on the calling thread for a short moment (a fast reply then
/// costs no thread hand-off), and otherwise suspends until the reactor sees the socket ready.
/// A connection serves one task at a time; using it from two at once is an error, not a race.
public final class PGConnection: @unchecked Sendable {
    let handle: OpaquePointer
    /// The configuration it was opened with (password included; never printed).
    public let config: PGConfig
    let cancelHandle: CancelHandle
    private let inUse = Atomic<Bool>(false)
    private var closed = false
    /// Notifications taken from libpq, for LISTEN consumers. Statements leave them in libpq's
    /// queue (reading it costs a parse per reply); the listener and the pool's idle check
    /// collect them.
    var pendingNotifications: [PGNotification] = []
    /// Nesting depth of `withTransaction`/`withSavepoint`.
    var transactionDepth = 0
    /// Statements prepared on this session, by SQL text (nil when `statementCacheSize` is 0).
    var statementCache: PGStatementCache?
    /// Work an abandoned stream left behind, done before the connection's next use.
    var pendingCleanup: [PendingCleanup] = []

    /// How long a reply is awaited on the calling thread before the task suspends: a point
    /// query or a single-row write answers within it, so it costs no thread hand-off; anything
    /// slower suspends and frees the thread. Never on the reactor's own thread, which serves
    /// the reply without a hand-off anyway and must not block.
    static let fastPollBudget: Duration = .milliseconds(3)
    /// Tasks of this process waiting for a reply right now. Only a lone waiter polls on its
    /// thread: with several statements in flight (a pool under load) the cooperative threads
    /// have other replies to handle, and a thread asleep in `poll` would hold them up.
    static let replyWaiters = Atomic<Int>(0)

    private init(handle: OpaquePointer, config: PGConfig) {
        self.handle = handle
        self.config = config
        self.cancelHandle = CancelHandle(PQgetCancel(handle))
        if config.statementCacheSize > 0 { statementCache = PGStatementCache(capacity: config.statementCacheSize) }
    }

    deinit {
        if !closed {
            IOReactor.shared.forget(fd: PQsocket(handle))
            PQfinish(handle)
        }
    }

    // MARK: Connecting

    /// Opens a connection, giving up after `config.connectTimeout`. Multi-host strings and
    /// `target_session_attrs` behave as libpq defines them, the timeout applying to each host.
    /// Cancelling the calling task ends the attempt at once with `CancellationError` (the next
    /// host is not tried); work that must connect although its task was cancelled runs in
    /// `withCancellationShield`.
    public static func connect(_ config: PGConfig) async throws -> PGConnection {
        guard let attempts = config.perHostAttempts() else { return try await connect(attempt: config, config: config) }
        var failures: [String] = []
        for attempt in attempts {
            do {
                return try await connect(attempt: attempt, config: config)
            } catch let error as PGError where error.kind == .connection || error.kind == .timeout {
                failures.append(error.message)
            }
        }
        throw PGError.connection("could not connect to any host: \(failures.joined(separator: "; "))")
    }

    /// One libpq connection attempt with `attempt`'s parameters; the connection keeps `config`.
    private static func connect(attempt: PGConfig, config: PGConfig) async throws -> PGConnection {
        var parameters = attempt.parameters
        if !parameters.contains(where: { $0.key == "client_encoding" }) { parameters.append(("client_encoding", "UTF8")) }
        let deadline = ContinuousClock.now + config.connectTimeout
        let handle: OpaquePointer? = withCStrings(parameters.map(\.key)) { keywords in
            withCStrings(parameters.map(\.value)) { values in PQconnectStartParams(keywords, values, 0) }
        }
        guard let handle else { throw PGError.connection("out of memory starting a connection") }
        // libpq prints server NOTICEs and WARNINGs to stderr by default; a library must not
        // write into its programs' output (taskserve's stderr is its JSON log), so they are
        // dropped (errors still throw). Set before the first poll: the server may send some
        // while the session starts (a database's `client_min_messages`, a login trigger).
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
        let target = Self.describeTarget(attempt)
        if PQstatus(handle) == CONNECTION_BAD {
            let message = Self.errorMessage(handle)
            PQfinish(handle)
            throw PGError.connection("could not connect to \(target): \(message)")
        }
        var status = PGRES_POLLING_WRITING
        while true {
            switch status {
            case PGRES_POLLING_OK:
                PQsetnonblocking(handle, 1)
                let connection = PGConnection(handle: handle, config: config)
                try await connection.checkSessionSettings()
                return connection
            case PGRES_POLLING_FAILED:
                let message = Self.errorMessage(handle)
                PQfinish(handle)
                throw PGError.connection("could not connect to \(target): \(message)")
            default:
                let fd = PQsocket(handle)
                // A cancelled task (a program stopped by Ctrl-C or SIGTERM) stops waiting at once,
                // rather than when a server that never answers has used up the connect timeout.
                let readiness = await IOReactor.shared.wait(
                    fd: fd, for: status == PGRES_POLLING_WRITING ? .write : .read, deadline: deadline, endOnCancel: true)
                if readiness == .timedOut || readiness == .cancelled {
                    IOReactor.shared.forget(fd: fd)
                    PQfinish(handle)
                    if readiness == .cancelled { throw CancellationError() }
                    throw PGError.timeout("could not connect to \(target) within \(config.connectTimeout)")
                }
                status = PQconnectPoll(handle)
            }
        }
    }

    /// The server's date output must be ISO for our timestamp parser.
    private func checkSessionSettings() async throws {
        if let style = PQparameterStatus(handle, "DateStyle"), !String(cString: style).hasPrefix("ISO") {
            try await execute("SET DateStyle = ISO")
        }
    }

    static func describeTarget(_ config: PGConfig) -> String {
        let host = config["host"] ?? config["hostaddr"] ?? "default host"
        let port = config["port"].map { ":\($0)" } ?? ""
        let database = config["dbname"].map { "/\($0)" } ?? ""
        let user = config["user"].map { "\($0)@" } ?? ""
        return "\(user)\(host)\(port)\(database)"
    }

    static func errorMessage(_ handle: OpaquePointer) -> String {
        PGConfig.mask(
            String(cString: PQerrorMessage(handle)).trimmingCharacters(in: .whitespacesAndNewlines)
                .replacingOccurrences(of: "\n", with: "; "))
    }

    /// Ends the session. Safe to call twice.
    public func close() async {
        guard !closed else { return }
        closed = true
        cancelHandle.invalidate()
        IOReactor.shared.forget(fd: PQsocket(handle))
        PQfinish(handle)
    }

    /// True after `close()` or once the server connection is known to be lost.
    public var isClosed: Bool { closed || PQstatus(handle) == CONNECTION_BAD }

    /// The server's version as a number (150004 for 15.4).
    public var serverVersion: Int { Int(PQserverVersion(handle)) }

    /// The server process serving this session (what `pg_stat_activity.pid` shows).
    public var backendPID: Int32 { PQbackendPID(handle) }

    /// Where the session stands with respect to transactions.
    public var transactionStatus: PGTransactionStatus {
        switch PQtransactionStatus(handle) {
        case PQTRANS_IDLE: return .idle
        case PQTRANS_ACTIVE: return .active
        case PQTRANS_INTRANS: return .inTransaction
        case PQTRANS_INERROR: return .failed
        default: return .unknown
        }
    }

    // MARK: Statements

    /// Runs a statement and returns its rows.
    ///
    /// With a `timeout`, the statement is cancelled on the server when it runs longer and the
    /// call throws a `.timeout` error; cancelling the calling task cancels it the same way. A
    /// task cancelled before the call sends nothing and throws `CancellationError`.
    public func query(_ query: PGQuery, timeout: Duration? = nil) async throws -> PGRows {
        try await withExclusiveUse {
            try await self.run(query, timeout: timeout)
        }
    }

    /// Runs a statement and returns the number of rows it affected.
    @discardableResult
    public func execute(_ query: PGQuery, timeout: Duration? = nil) async throws -> Int {
        try await self.query(query, timeout: timeout).affectedRows
    }

    /// Runs text of one or more statements with the simple-query protocol (no parameters),
    /// returning each statement's rows. For migration files and other trusted, program-made SQL.
    @discardableResult
    public func simpleQuery(unsafeSQL sql: String, timeout: Duration? = nil) async throws -> [PGRows] {
        try await withExclusiveUse {
            try self.ensureOpen()
            guard PQsendQuery(self.handle, sql) == 1 else { throw self.connectionError("could not send the statement") }
            try await self.flush()
            return try await self.collectResults(timeout: timeout, sql: sql)
        }
    }

    // MARK: Internals

    func ensureOpen() throws {
        if closed { throw PGError.client("the connection is closed") }
        if PQstatus(handle) == CONNECTION_BAD { throw PGError.connection("the connection to the server was lost") }
    }

    func connectionError(_ what: String) -> PGError {
        PGError.connection("\(what): \(Self.errorMessage(handle))")
    }

    /// Runs `body` with this connection marked busy; a second concurrent user gets an error.
    /// A task already cancelled gets `CancellationError` and `body` does not run (see
    /// `beginExclusiveUse`).
    nonisolated(nonsending) func withExclusiveUse<T>(evenIfCancelled: Bool = false, _ body: () async throws -> T) async throws -> T {
        try await beginExclusiveUse(evenIfCancelled: evenIfCancelled)
        defer { endExclusiveUse() }
        return try await body()
    }

    /// Marks the connection busy (for streams that outlive one call) and finishes what an
    /// abandoned stream left behind. Pair with `endExclusiveUse()`.
    ///
    /// Every statement, pipeline, COPY and LISTEN starts here, so this is where a cancelled
    /// task is turned away: it throws `CancellationError` and sends nothing, rather than send
    /// its statement and cancel it with `PQcancel` (a fast one would run to its end first). What
    /// an abandoned stream left behind then waits for the connection's next use (a pool runs it,
    /// shielded, when the connection is handed back). Work that must go out although its task
    /// was cancelled (a ROLLBACK) runs in `withCancellationShield`; `evenIfCancelled` is for
    /// a pool running other callers' pipelines together with its own.
    func beginExclusiveUse(evenIfCancelled: Bool = false) async throws {
        guard inUse.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else {
            throw PGError.client("the connection is already in use by another task")
        }
        do {
            if !pendingCleanup.isEmpty, evenIfCancelled || !Task.isCancelled { try await runPendingCleanup() }
            if !evenIfCancelled { try Task.checkCancellation() }
        } catch {
            endExclusiveUse()
            throw error
        }
    }

    func endExclusiveUse() {
        inUse.store(false, ordering: .releasing)
    }

    /// Sends one statement (outside pipeline mode), leaving what the socket did not take for
    /// the wait that follows.
    func send(_ query: PGQuery, as action: PGStatementAction = .execute) throws {
        try ensureOpen()
        try sendStep(query, as: action)
        if PQflush(handle) != 0 { pendingFlush = true }
    }

    /// Queues one protocol step with libpq. Texts go through `withCString`, which lends a
    /// string's own bytes, where passing a `String` as a C argument copies it first.
    func sendStep(_ query: PGQuery, as action: PGStatementAction) throws {
        let sent: Int32
        switch action {
        case .execute:
            sent = query.sql.withCString { sql in
                query.withParameterPointers { count, types, values, lengths, formats in
                    PQsendQueryParams(handle, sql, count, types, values, lengths, formats, 0)
                }
            }
        case .prepare(let name):
            sent = name.withCString { name in
                query.sql.withCString { sql in
                    query.withParameterPointers { count, types, _, _, _ in PQsendPrepare(handle, name, sql, count, types) }
                }
            }
        case .executePrepared(let name):
            sent = name.withCString { name in
                query.withParameterPointers { count, _, values, lengths, formats in
                    PQsendQueryPrepared(handle, name, count, values, lengths, formats, 0)
                }
            }
        case .sync:
            sent = PQpipelineSync(handle)
        }
        guard sent == 1 else { throw connectionError("could not send the statement") }
        justSentStatement = true
    }

    private var pendingFlush = false
    /// A statement went out since the last wait for a reply.
    private var justSentStatement = false

    /// Writes what libpq has buffered, waiting for the socket when it is full.
    func flush() async throws {
        while true {
            let result = PQflush(handle)
            if result == 0 { pendingFlush = false; return }
            if result < 0 { throw connectionError("could not send data to the server") }
            // Keep reading while the socket is full: a server blocked on writing to us stops reading.
            _ = await IOReactor.shared.wait(fd: PQsocket(handle), for: .readOrWrite, deadline: nil)
            if PQconsumeInput(handle) == 0 { throw connectionError("lost the connection while sending") }
        }
    }

    /// How long the statement of a cancelled task may go on before its cancel request is sent
    /// again. One request can miss: PostgreSQL ignores a cancel that reaches a session still
    /// reading its statement (sent just before, on a loaded machine: 1 in 100 measured), or the
    /// request ended an earlier statement; the statement then ran to its end, a lock wait until
    /// `lock_timeout`.
    static let cancelRepeatInterval: Duration = .milliseconds(500)

    /// Waits until libpq holds a complete result (PQisBusy false), polling briefly on this
    /// thread first, then suspending. Handles the timeout and, with `followsCancellation`, task
    /// cancellation: while the task is cancelled and the statement still runs, the cancel
    /// request goes again every `cancelRepeatInterval`.
    func waitUntilResultReady(deadline: ContinuousClock.Instant?, cancelState: CancelState, followsCancellation: Bool = true) async throws {
        if pendingFlush { try await flush() }
        Self.replyWaiters.wrappingAdd(1, ordering: .relaxed)
        defer { Self.replyWaiters.wrappingSubtract(1, ordering: .relaxed) }
        // The calling thread may wait for the reply itself until this instant (only while no
        // other task waits for one), across every packet of the reply; then the task suspends.
        var fastPollEnd: ContinuousClock.Instant?
        // Right after sending, the reply cannot have arrived yet: poll before reading the
        // socket (a read then would only say "nothing yet").
        var justSent = justSentStatement
        justSentStatement = false
        while true {
            if PQisBusy(handle) == 0 { return }
            if fastPollEnd != nil || !justSent {
                if PQconsumeInput(handle) == 0 { throw connectionError("lost the connection to the server") }
                if PQisBusy(handle) == 0 { return }
            }
            justSent = false
            let fd = PQsocket(handle)
            let now = ContinuousClock.now
            let end = fastPollEnd ?? now + Self.fastPollBudget
            fastPollEnd = end
            if now < end, Self.replyWaiters.load(ordering: .relaxed) == 1, !IOReactor.shared.isCurrentThread {
                var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                if poll(&descriptor, 1, max(1, Int32(clamping: (end - now).milliseconds))) > 0 { continue }
            }
            let waitDeadline = cancelState.timeoutFired ? nil : deadline
            let cancelled = followsCancellation && Task.isCancelled
            let repeatAt = cancelled ? ContinuousClock.now + Self.cancelRepeatInterval : nil
            // Not yet cancelled, the wait ends when the task is, to start repeating.
            let wakeAt = repeatAt.map { again in waitDeadline.map { min($0, again) } ?? again } ?? waitDeadline
            let readiness = await IOReactor.shared.wait(fd: fd, for: .read, deadline: wakeAt, endOnCancel: followsCancellation && !cancelled)
            if readiness == .timedOut {
                if let waitDeadline, ContinuousClock.now >= waitDeadline { cancelState.timeoutFired = true }
                cancelHandle.cancel()
            }
        }
    }

    /// Reads every result of the statement just sent, returning the last one with rows.
    func awaitSingleResult(timeout: Duration?, sql: String) async throws -> PGRows {
        let results = try await collectResults(timeout: timeout, sql: sql)
        guard let last = results.last else { throw PGError.client("the server returned no result") }
        return last
    }

    /// Drains results to NULL, turning the first error into a thrown `PGError`.
    func collectResults(timeout: Duration?, sql: String) async throws -> [PGRows] {
        let cancelState = CancelState()
        let deadline = timeout.map { ContinuousClock.now + $0 }
        var rows: [PGRows] = []
        var failure: PGError?
        try await withTaskCancellationHandler {
            while true {
                try await waitUntilResultReady(deadline: deadline, cancelState: cancelState)
                guard let raw = PQgetResult(handle) else { break }
                let result = PGResult(raw)
                switch result.status {
                case PGRES_TUPLES_OK, PGRES_COMMAND_OK, PGRES_EMPTY_QUERY:
                    rows.append(PGRows(result: result))
                case PGRES_COPY_IN, PGRES_COPY_OUT, PGRES_COPY_BOTH:
                    failure = failure ?? PGError.client("COPY must go through the copy API")
                    try await abandonCopy(status: result.status)
                default:
                    if failure == nil { failure = Self.error(from: result, sql: sql, timedOut: cancelState.timeoutFired, timeout: timeout) }
                }
            }
        } onCancel: {
            cancelHandle.cancel()
        }
        if let failure { throw failure }
        return rows
    }

    /// Ends a COPY started by a plain query so the connection stays usable.
    func abandonCopy(status: ExecStatusType) async throws {
        if status == PGRES_COPY_IN {
            _ = PQputCopyEnd(handle, "COPY must go through the copy API")
            try await flush()
        } else {
            var buffer: UnsafeMutablePointer<CChar>?
            while true {
                let count = PQgetCopyData(handle, &buffer, 1)
                if let pointer = buffer { PQfreemem(pointer); buffer = nil }
                if count == -1 { break }
                if count == -2 { throw connectionError("COPY failed") }
                if count == 0 {
                    _ = await IOReactor.shared.wait(fd: PQsocket(handle), forWrite: false, deadline: nil)
                    if PQconsumeInput(handle) == 0 { throw connectionError("lost the connection during COPY") }
                }
            }
        }
    }

    static func error(from result: PGResult, sql: String, timedOut: Bool, timeout: Duration?) -> PGError {
        var error = PGError(result: result.pointer)
        if timedOut, error.code == .queryCanceled, let timeout {
            error.kind = .timeout
            error.message = "statement timed out after \(timeout) and was cancelled on the server"
        }
        return error
    }

    /// Moves notifications libpq has parsed into `pendingNotifications`.
    func collectNotifications() {
        while let notify = PQnotifies(handle) {
            let event = notify.pointee
            pendingNotifications.append(
                PGNotification(
                    channel: String(cString: event.relname), payload: String(cString: event.extra), senderPID: event.be_pid))
            PQfreemem(notify)
        }
    }
}

/// Where a session stands with respect to transactions.
public enum PGTransactionStatus: Sendable {
    case idle, active, inTransaction, failed, unknown
}

/// A NOTIFY received by a session that LISTENs.
public struct PGNotification: Sendable, Equatable {
    /// The channel named in NOTIFY.
    public var channel: String
    /// The payload string ("" when none was given).
    public var payload: String
    /// The server process that sent it.
    public var senderPID: Int32
}

/// What an abandoned stream left to do on its connection.
enum PendingCleanup: Sendable {
    /// A COPY TO STDOUT whose reader stopped early: cancel it and drain the rest.
    case copyOut
    /// A notification stream that ended without its UNLISTEN.
    case unlisten(channel: String)
}

/// The state of one statement's cancellation (timeout fired or not).
final class CancelState: @unchecked Sendable {
    var timeoutFired = false
}

/// Owns libpq's `PGcancel`, usable from any thread (cancellation handlers run elsewhere):
/// every use of the pointer happens under the lock.
final class CancelHandle: @unchecked Sendable {
    private let lock = Mutex<Void>(())
    private var pointer: OpaquePointer?

    init(_ pointer: OpaquePointer?) { self.pointer = pointer }

    deinit { if let pointer { PQfreeCancel(pointer) } }

    /// Asks the server to cancel the running statement; ignored by an idle session.
    func cancel() {
        lock.withLock { _ in
            guard let pointer else { return }
            var buffer = [CChar](repeating: 0, count: 256)
            _ = PQcancel(pointer, &buffer, 256)
        }
    }

    func invalidate() {
        lock.withLock { _ in
            if let current = pointer { PQfreeCancel(current) }
            pointer = nil
        }
    }
}

/// Calls `body` with a NULL-terminated array of C strings.
func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
    let duplicates = strings.map { strdup($0) }
    defer { duplicates.forEach { free($0) } }
    var pointers = duplicates.map { UnsafePointer($0) }
    pointers.append(nil)
    return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}
