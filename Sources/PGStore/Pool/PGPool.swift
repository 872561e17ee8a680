import Synchronization

/// A pool of connections shared by many tasks: at most `maxConnections` open, handed out one
/// task at a time through `withConnection`.
///
/// A connection is checked before it is handed out: one the server closed while it sat idle
/// (a restart) is dropped and replaced, so callers see the server come back without doing
/// anything; one idle longer than `healthCheckAfterIdle` runs `SELECT 1` first. A connection
/// handed back inside a transaction is rolled back (dropped if that fails). Waiters are served
/// first come, first served. The hot path is one lock on the way in and one on the way out.
///
/// `pipeline(_:)` runs a batch of statements in one round trip. While every connection is
/// busy, such batches wait in line with everyone else, and the connection that frees up runs
/// the batches at the head of the line together, in one round trip, each still its own
/// implicit transaction: 64 callers over 8 connections then cost the server a fraction of
/// the wake-ups and the client a fraction of the system calls (`PGPoolOptions.pipelinesPerRoundTrip`).
///
/// Connections from a pool suit statements and transactions; LISTEN needs a connection of its
/// own (`PGConnection.connect`), since a pooled session changes hands.
public final class PGPool: Sendable {
    /// What the pool was created with.
    public let config: PGConfig
    /// Its limits and timings.
    public let options: PGPoolOptions
    private let state: Mutex<State>

    /// A connection the pool owns, with the times that decide its fate.
    struct Lease: Sendable {
        let connection: PGConnection
        let createdAt: ContinuousClock.Instant
        var lastUsed: ContinuousClock.Instant
    }

    /// What a waiter is given: a connection, permission to open one, or — for a waiting
    /// pipeline that another caller ran — its results.
    private enum Grant: Sendable {
        case connection(Lease)
        case openNew
        case served([PGPipelineResult])
    }

    private struct Waiter {
        let id: Int
        let continuation: CheckedContinuation<Grant, Error>
        let deadline: ContinuousClock.Instant
        /// The statements of a waiting `pipeline(_:)` call, which a connection's holder may
        /// run for it; nil for a caller that needs the connection itself.
        let pipeline: [PGQuery]?
    }

    private struct State {
        var idle: [Lease] = []
        var inUse = 0
        var opening = 0
        var waiters: [Waiter] = []
        var nextWaiterID = 0
        var created = 0
        var failed = 0
        var discarded = 0
        var peakOpen = 0
        var servedPipelines = 0
        var isShutDown = false
        var shutdownWaiters: [CheckedContinuation<Void, Never>] = []
        var timeoutSweeper: Task<Void, Never>?
        var idleReaper: Task<Void, Never>?

        var open: Int { idle.count + inUse + opening }

        mutating func notePeak() { peakOpen = max(peakOpen, open) }

        /// Takes what a new caller gets right away: an idle connection, or a slot to open one.
        mutating func immediateGrant(max: Int) -> Grant? {
            if let lease = idle.popLast() {
                inUse += 1
                return .connection(lease)
            }
            if open < max {
                opening += 1
                notePeak()
                return .openNew
            }
            return nil
        }
    }

    /// A pool over `config`; no connection is opened until one is needed.
    public init(config: PGConfig, options: PGPoolOptions = PGPoolOptions()) {
        self.config = config
        self.options = options
        self.state = Mutex(State())
        startIdleReaper()
    }

    deinit {
        state.withLock { state in
            state.timeoutSweeper?.cancel()
            state.idleReaper?.cancel()
        }
    }

    /// Runs `body` with a connection of the pool and hands the connection back afterwards,
    /// whether `body` returns or throws. Throws `.timeout` when no connection frees up within
    /// `acquireTimeout`, and the connect error when a new connection cannot be opened.
    @discardableResult
    public func withConnection<T>(_ body: (PGConnection) async throws -> T) async throws -> T {
        let lease = try await acquire()
        let value: T
        do {
            value = try await body(lease.connection)
        } catch {
            await release(lease)
            throw error
        }
        await release(lease)
        return value
    }

    /// Runs `queries` in one round trip on a connection of the pool, as one implicit
    /// transaction (see `PGConnection.pipeline`): statement errors are in the results,
    /// connection failures throw.
    ///
    /// When no connection is free, the call waits in line; the caller that gets a connection
    /// runs its own pipeline together with those waiting at the head of the line (up to
    /// `options.pipelinesPerRoundTrip` in all) and hands each its results. Line order is kept:
    /// a caller of `withConnection` waiting ahead of a pipeline is served first. A pipeline
    /// run by another caller is not cancelled on the server when its own task is cancelled
    /// (the statement running then could be anyone's); cancelled while it still waits in
    /// line, it is dropped and throws `CancellationError`. A caller cancelled once it holds
    /// the connection sends nothing of its own and throws `CancellationError`, after running
    /// the pipelines it took from the line.
    public func pipeline(_ queries: [PGQuery]) async throws -> [PGPipelineResult] {
        guard !queries.isEmpty else { return [] }
        for query in queries { try query.checkSendable() }
        let lease: Lease
        switch try await acquire(pipeline: queries) {
        case .connection(let granted): lease = granted
        case .served(let results): return results
        case .openNew: preconditionFailure("acquire opens the connection itself")
        }
        return try await runPipeline(queries, on: lease)
    }

    /// Runs `queries` on `lease`'s connection together with the pipelines waiting at the head
    /// of the line, hands each waiter its results and the connection back to the pool. When
    /// the calling task is cancelled, its own pipeline is left out (the waiters' still run)
    /// and it throws `CancellationError`.
    func runPipeline(_ queries: [PGQuery], on lease: Lease) async throws -> [PGPipelineResult] {
        let waiting = takeWaitingPipelines(limit: options.pipelinesPerRoundTrip - 1)
        var ownCancelled = false
        let results: [[PGPipelineResult]]
        do {
            // Decided here, with nothing between it and the send that could suspend.
            results = try await lease.connection.withExclusiveUse(evenIfCancelled: true) {
                ownCancelled = Task.isCancelled
                var pipelines = ownCancelled ? [] : [queries]
                pipelines += waiting.map(\.queries)
                if pipelines.isEmpty { return [] }
                return try await lease.connection.runPipelines(pipelines, timeout: nil, followsCancellation: waiting.isEmpty)
            }
        } catch {
            for waiter in waiting { waiter.continuation.resume(throwing: error) }
            await release(lease)
            throw error
        }
        let others = ownCancelled ? results[...] : results.dropFirst()
        for (waiter, served) in zip(waiting, others) { waiter.continuation.resume(returning: .served(served)) }
        await release(lease)
        if ownCancelled { throw CancellationError() }
        return results[0]
    }

    /// Takes the pipelines waiting at the head of the line, up to `limit`; stops at the first
    /// waiter that needs a connection of its own, so nobody is overtaken.
    private func takeWaitingPipelines(limit: Int) -> [(continuation: CheckedContinuation<Grant, Error>, queries: [PGQuery])] {
        guard limit > 0 else { return [] }
        return state.withLock { state in
            var taken: [(continuation: CheckedContinuation<Grant, Error>, queries: [PGQuery])] = []
            while taken.count < min(limit, state.waiters.count), let queries = state.waiters[taken.count].pipeline {
                taken.append((state.waiters[taken.count].continuation, queries))
            }
            state.waiters.removeFirst(taken.count)
            state.servedPipelines += taken.count
            return taken
        }
    }

    /// What the pool holds and has done, right now.
    public var statistics: PGPoolStatistics {
        state.withLock { state in
            PGPoolStatistics(
                open: state.open, idle: state.idle.count, inUse: state.inUse, opening: state.opening,
                waiting: state.waiters.count, created: state.created, failed: state.failed,
                discarded: state.discarded, peakOpen: state.peakOpen, servedPipelines: state.servedPipelines)
        }
    }

    /// Stops handing out connections (waiters and later callers get an error), closes the idle
    /// ones, and returns once every checked-out connection has come back and been closed.
    public func shutdown() async {
        let (idle, waiters, tasks) = state.withLock { state in
            state.isShutDown = true
            defer {
                state.idle.removeAll()
                state.waiters.removeAll()
            }
            return (state.idle, state.waiters, [state.timeoutSweeper, state.idleReaper])
        }
        for task in tasks { task?.cancel() }
        for waiter in waiters { waiter.continuation.resume(throwing: PGError.client("the pool is shut down")) }
        for lease in idle { await lease.connection.close() }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state in
                if state.inUse == 0 && state.opening == 0 { return true }
                state.shutdownWaiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    // MARK: Checking out and in

    func acquire() async throws -> Lease {
        guard case .connection(let lease) = try await acquire(pipeline: nil) else {
            preconditionFailure("only a waiting pipeline is served")
        }
        return lease
    }

    /// A connection, checked; or, for a waiting `pipeline` that another caller ran, its results.
    /// A cancelled task takes no connection: it throws `CancellationError` (one granted as it
    /// was cancelled goes back to the pool unchecked, rather than fail its health check).
    private func acquire(pipeline: [PGQuery]?) async throws -> Grant {
        let deadline = ContinuousClock.now + options.acquireTimeout
        while true {
            try Task.checkCancellation()
            let grant: Grant
            let immediate = try state.withLock { state -> Grant? in
                if state.isShutDown { throw PGError.client("the pool is shut down") }
                return state.immediateGrant(max: options.maxConnections)
            }
            if let immediate {
                grant = immediate
            } else {
                grant = try await waitForGrant(deadline: deadline, pipeline: pipeline)
            }
            switch grant {
            case .connection(let lease):
                if Task.isCancelled {
                    await release(lease, used: false)
                    throw CancellationError()
                }
                if let ready = await checkedOut(lease) { return .connection(ready) }
            case .openNew:
                return .connection(try await openConnection())
            case .served:
                return grant
            }
        }
    }

    /// A connection taken from the idle list, checked; nil (and the connection dropped) when
    /// it is broken, too old or fails its health check.
    private func checkedOut(_ lease: Lease) async -> Lease? {
        let now = ContinuousClock.now
        let idleState = lease.connection.idleState()
        var healthy = idleState != .lost && !isExpired(lease, now: now)
        if healthy && (idleState == .suspicious || now - lease.lastUsed > options.healthCheckAfterIdle) {
            healthy = (try? await lease.connection.execute("SELECT 1", timeout: .seconds(5))) != nil
        }
        if healthy { return lease }
        await discard(lease.connection, wasInUse: true)
        return nil
    }

    private func isExpired(_ lease: Lease, now: ContinuousClock.Instant) -> Bool {
        if let maxLifetime = options.maxLifetime, now - lease.createdAt > maxLifetime { return true }
        if let idleTimeout = options.idleTimeout, now - lease.lastUsed > idleTimeout { return true }
        return false
    }

    private func openConnection() async throws -> Lease {
        do {
            let connection = try await PGConnection.connect(config)
            let now = ContinuousClock.now
            state.withLock { state in
                state.opening -= 1
                state.inUse += 1
                state.created += 1
            }
            return Lease(connection: connection, createdAt: now, lastUsed: now)
        } catch {
            // The slot is free again: let the next waiter try for itself.
            let next = state.withLock { state -> Waiter? in
                state.opening -= 1
                state.failed += 1
                guard !state.waiters.isEmpty else { return nil }
                state.opening += 1
                return state.waiters.removeFirst()
            }
            next?.continuation.resume(returning: .openNew)
            resumeShutdownIfDone()
            throw error
        }
    }

    private func waitForGrant(deadline: ContinuousClock.Instant, pipeline: [PGQuery]?) async throws -> Grant {
        let id = state.withLock { state in
            state.nextWaiterID += 1
            return state.nextWaiterID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Grant, Error>) in
                let outcome = state.withLock { state -> Result<Grant, Error>? in
                    if state.isShutDown { return .failure(PGError.client("the pool is shut down")) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if let grant = state.immediateGrant(max: options.maxConnections) { return .success(grant) }
                    state.waiters.append(Waiter(id: id, continuation: continuation, deadline: deadline, pipeline: pipeline))
                    if state.timeoutSweeper == nil { state.timeoutSweeper = startTimeoutSweeper() }
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Hands a connection back: to the first waiter, or to the idle list. `used` false keeps
    /// its last use as it was (for one handed back untouched), so its idle checks still apply.
    func release(_ lease: Lease, used: Bool = true) async {
        let connection = lease.connection
        var reusable = true
        if !connection.pendingCleanup.isEmpty || connection.transactionStatus != .idle {
            reusable = await connection.resetForReuse()
        }
        let now = ContinuousClock.now
        if connection.isClosed || isExpired(lease, now: now) { reusable = false }
        guard reusable else {
            await discard(connection, wasInUse: true)
            return
        }
        var returned = lease
        if used { returned.lastUsed = now }
        // Under one lock: closed if the pool is shut down, else handed to the first waiter or kept idle.
        let (isShutDown, waiter) = state.withLock { state -> (Bool, Waiter?) in
            if state.isShutDown { return (true, nil) }
            if !state.waiters.isEmpty { return (false, state.waiters.removeFirst()) }
            state.inUse -= 1
            state.idle.append(returned)
            return (false, nil)
        }
        if isShutDown {
            await discard(connection, wasInUse: true)
        } else {
            waiter?.continuation.resume(returning: .connection(returned))
        }
    }

    /// Closes a connection the pool gives up on; its slot goes to the next waiter.
    private func discard(_ connection: PGConnection, wasInUse: Bool) async {
        await connection.close()
        let next = state.withLock { state -> Waiter? in
            if wasInUse { state.inUse -= 1 }
            state.discarded += 1
            guard !state.isShutDown, !state.waiters.isEmpty else { return nil }
            state.opening += 1
            return state.waiters.removeFirst()
        }
        next?.continuation.resume(returning: .openNew)
        resumeShutdownIfDone()
    }

    private func resumeShutdownIfDone() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard state.isShutDown, state.inUse == 0, state.opening == 0 else { return [] }
            defer { state.shutdownWaiters.removeAll() }
            return state.shutdownWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    // MARK: Background upkeep

    /// One task serves every waiter's deadline: it sleeps until the earliest, fails the ones
    /// past due, and ends when nobody waits.
    private func startTimeoutSweeper() -> Task<Void, Never> {
        Task { [weak self] in
            while true {
                guard let self else { return }
                let (expired, next) = self.state.withLock { state -> ([Waiter], ContinuousClock.Instant?) in
                    let now = ContinuousClock.now
                    let expired = state.waiters.filter { $0.deadline <= now }
                    state.waiters.removeAll { $0.deadline <= now }
                    let next = state.waiters.map(\.deadline).min()
                    if next == nil { state.timeoutSweeper = nil }
                    return (expired, next)
                }
                for waiter in expired {
                    waiter.continuation.resume(
                        throwing: PGError.timeout(
                            "no connection free within \(self.options.acquireTimeout) (pool of \(self.options.maxConnections), all in use)"))
                }
                guard let next else { return }
                do { try await Task.sleep(until: next, clock: .continuous) } catch { return }
            }
        }
    }

    /// Closes idle connections past their idle timeout or lifetime, every few seconds.
    private func startIdleReaper() {
        let limits = [options.idleTimeout, options.maxLifetime].compactMap { $0 }
        guard let shortest = limits.min() else { return }
        let interval = min(max(shortest / 4, .milliseconds(100)), .seconds(30))
        let task = Task { [weak self] in
            while true {
                do { try await Task.sleep(for: interval) } catch { return }
                guard let self else { return }
                let now = ContinuousClock.now
                let stale = self.state.withLock { state -> [Lease] in
                    let stale = state.idle.filter { self.isExpired($0, now: now) }
                    state.idle.removeAll { self.isExpired($0, now: now) }
                    return stale
                }
                for lease in stale { await self.discard(lease.connection, wasInUse: false) }
            }
        }
        state.withLock { $0.idleReaper = task }
    }
}
