import CLibPQ
import Foundation
import Glibc
import Synchronization

/// What a wait on a socket ended with.
enum SocketReadiness: Sendable {
    case ready
    case timedOut
    /// The waiting task was cancelled (only for waits that asked for it).
    case cancelled
}

/// What a wait on a socket waits for.
enum SocketInterest: Sendable {
    case read
    case write
    /// Either: a writer that must keep reading so the server never blocks on a full socket.
    case readOrWrite

    var events: UInt32 {
        switch self {
        case .read: return EPOLLIN.rawValue
        case .write: return EPOLLOUT.rawValue
        case .readOrWrite: return EPOLLIN.rawValue | EPOLLOUT.rawValue
        }
    }
}

/// The one thread that waits on every idle connection's socket (epoll), so that a task
/// waiting for PostgreSQL suspends instead of blocking one of Swift's cooperative threads.
///
/// Registrations are one-shot: each wait arms the socket once and the event (or the
/// deadline) resumes exactly one continuation. Every path that resumes one first removes its
/// waiter under the lock, which is what makes unchecked continuations safe here (a checked one
/// costs an allocation per wait, on every reply that does not arrive within the fast poll).
///
/// The thread is also an event loop for others: a program can attach a source of its own (an
/// HTTP daemon's epoll descriptor, served on this thread when ready or due), and the thread is
/// a `TaskExecutor`. A task that prefers it runs here, between the waits, so that its reply
/// from PostgreSQL, its request and its answer never change threads: a reply read on this
/// thread resumes the task in the same turn, with no wake-up of another thread. Such work must
/// not block; a task that does heavy work prefers the global executor.
public final class IOReactor: TaskExecutor, Sendable {
    /// The process's I/O thread.
    public static let shared = IOReactor()

    private struct Waiter {
        var continuation: UnsafeContinuation<SocketReadiness, Never>
        var deadline: ContinuousClock.Instant?
    }

    private let epollFD: Int32
    private let wakeFD: Int32
    private let waiters = Mutex<[Int32: Waiter]>([:])

    /// Jobs of the tasks that prefer this thread, and whether the thread is (about to be)
    /// asleep in `epoll_wait`, so that an enqueue from another thread must wake it.
    private struct RunQueue {
        var jobs: [UnownedJob] = []
        var sleeping = false
        var wakePending = false
        /// Something changed while the thread was awake (a poke, a source, a deadline) after
        /// it may have computed how long to sleep: its next wait must not block.
        var stirred = false
    }

    private let runQueue = Mutex(RunQueue())
    /// Attached sources, by the descriptor they watch.
    private let sources = Mutex<[Int32: Source]>([:])
    /// The thread's id (`pthread_self`), once it runs.
    private let threadID = Atomic<UInt>(0)

    /// A source attached to the loop: a descriptor to watch for reading, what to do when it is
    /// readable or due, and when it is next due regardless (milliseconds; nil: only when ready).
    /// A class, so that a turn marks it in place: changing a value in the dictionary costs an
    /// allocation on every turn.
    private final class Source: @unchecked Sendable {
        let fd: Int32
        let ready: @Sendable () -> Void
        let nextDue: @Sendable () -> Int32?
        // Both only under `sources`' lock.
        var dueAt: ContinuousClock.Instant?
        /// `poke` asked for a turn.
        var poked = false

        init(fd: Int32, ready: @escaping @Sendable () -> Void, nextDue: @escaping @Sendable () -> Int32?) {
            (self.fd, self.ready, self.nextDue) = (fd, ready, nextDue)
        }
    }

    /// What one turn of the thread collects, kept from turn to turn so that a turn allocates
    /// nothing once they have grown. Only the thread touches it.
    private struct Turn {
        var jobs: [UnownedJob] = []
        var ready: [UnsafeContinuation<SocketReadiness, Never>] = []
        var expired: [UnsafeContinuation<SocketReadiness, Never>] = []
        var readySources: [Int32] = []
        var sources: [Source] = []
    }

    private init() {
        epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        wakeFD = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        precondition(epollFD >= 0 && wakeFD >= 0, "epoll/eventfd unavailable: \(errno)")
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.fd = wakeFD
        epoll_ctl(epollFD, EPOLL_CTL_ADD, wakeFD, &event)
        let thread = Thread { [self] in self.run() }
        thread.name = "PGStore.IOReactor"
        thread.start()
    }

    /// Suspends until `fd` is readable (or writable when `forWrite`), or `deadline` passes.
    func wait(fd: Int32, forWrite: Bool, deadline: ContinuousClock.Instant?) async -> SocketReadiness {
        await wait(fd: fd, for: forWrite ? .write : .read, deadline: deadline)
    }

    /// Suspends until `fd` is ready for `interest`, `deadline` passes, or — with
    /// `endOnCancel` — the calling task is cancelled.
    func wait(
        fd: Int32, for interest: SocketInterest, deadline: ContinuousClock.Instant?, endOnCancel: Bool = false
    ) async -> SocketReadiness {
        guard endOnCancel else { return await register(fd: fd, interest: interest, deadline: deadline, checkCancel: false) }
        // The task's cancelled flag is set before the handler runs, and both the handler and the
        // registration hold the lock: either the registration sees the flag, or the handler
        // finds the waiter.
        return await withTaskCancellationHandler {
            await register(fd: fd, interest: interest, deadline: deadline, checkCancel: true)
        } onCancel: {
            let waiter = waiters.withLock { $0.removeValue(forKey: fd) }
            waiter?.continuation.resume(returning: .cancelled)
        }
    }

    private func register(
        fd: Int32, interest: SocketInterest, deadline: ContinuousClock.Instant?, checkCancel: Bool
    ) async -> SocketReadiness {
        await withUnsafeContinuation { continuation in
            waiters.withLock { waiters in
                if checkCancel && Task.isCancelled {
                    continuation.resume(returning: .cancelled)
                    return
                }
                waiters[fd] = Waiter(continuation: continuation, deadline: deadline)
                var event = epoll_event()
                event.events = interest.events | EPOLLONESHOT.rawValue | EPOLLRDHUP.rawValue
                event.data.fd = fd
                if epoll_ctl(epollFD, EPOLL_CTL_MOD, fd, &event) != 0 {
                    if epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event) != 0 {
                        // Not pollable (closed under us): let the caller find out from libpq.
                        waiters.removeValue(forKey: fd)?.continuation.resume(returning: .ready)
                        return
                    }
                }
            }
            if deadline != nil && !isCurrentThread { wakeIfAsleep { _ in } }
        }
    }

    /// Stops watching `fd`; call before the socket is closed.
    func forget(fd: Int32) {
        guard fd >= 0 else { return }
        let waiter = waiters.withLock { waiters -> Waiter? in
            epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, nil)
            return waiters.removeValue(forKey: fd)
        }
        waiter?.continuation.resume(returning: .ready)
    }

    private func wake() {
        var one: UInt64 = 1
        _ = Glibc.write(wakeFD, &one, 8)
    }

    // MARK: The event loop for others

    /// Whether the caller runs on this thread (where a wait must never block).
    public var isCurrentThread: Bool {
        let id = threadID.load(ordering: .acquiring)
        return id != 0 && pthread_equal(pthread_self(), pthread_t(id)) != 0
    }

    /// Runs `job` on this thread, after what is queued already.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        wakeIfAsleep { $0.jobs.append(job) }
    }

    /// Changes the run queue, and wakes the thread if it sleeps (once: a wake-up not yet read
    /// serves every later change); if it is awake, its next wait does not block, since it may
    /// have decided how long to sleep before the change.
    private func wakeIfAsleep(after change: (inout RunQueue) -> Void) {
        let mustWake = runQueue.withLock { queue in
            change(&queue)
            guard queue.sleeping else {
                queue.stirred = true
                return false
            }
            guard !queue.wakePending else { return false }
            queue.wakePending = true
            return true
        }
        if mustWake { wake() }
    }

    /// Runs the source attached on `fd` on the thread's next turn, whatever its descriptor
    /// says: for a source whose state changed outside its descriptor (libmicrohttpd's resumed
    /// connections, which it does not see in external mode until it is run).
    public func poke(fd: Int32) {
        sources.withLock { if let source = $0[fd] { source.poked = true } }
        wakeIfAsleep { _ in }
    }

    /// Serves `fd` on this thread: `ready` runs whenever it is readable, and also once
    /// `nextDue` milliseconds have passed since it was last asked (nil: no deadline; asked on
    /// every turn, before the thread waits). False when the descriptor cannot be watched.
    /// Detach it before closing the descriptor.
    public func attach(fd: Int32, ready: @escaping @Sendable () -> Void, nextDue: @escaping @Sendable () -> Int32?) -> Bool {
        let added = sources.withLock { sources -> Bool in
            var event = epoll_event()
            event.events = EPOLLIN.rawValue
            event.data.fd = fd
            guard epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event) == 0 else { return false }
            sources[fd] = Source(fd: fd, ready: ready, nextDue: nextDue)
            return true
        }
        if added { wakeIfAsleep { _ in } }
        return added
    }

    /// Stops serving `fd`; once it returns, the thread calls its source no more.
    public func detach(fd: Int32) async {
        await perform { [self] in
            sources.withLock { sources in
                epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, nil)
                _ = sources.removeValue(forKey: fd)
            }
        }
    }

    /// Runs `body` on this thread and returns its result: for calls that must not run beside
    /// an attached source's own (a daemon's stop).
    public func perform<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        if isCurrentThread { return body() }
        return await Task(executorPreference: self) { body() }.value
    }

    /// Runs the jobs queued when it starts (those they queue wait for the next turn, after
    /// the sockets are read). Changes from then on reach the turn's wait: as a wake-up, or as
    /// `stirred`, which it clears here, before the turn reads what it must wait for. The
    /// queue and `turn.jobs` trade buffers, so neither is copied.
    private func runQueuedJobs(_ turn: inout Turn) {
        runQueue.withLock { queue in
            queue.stirred = false
            swap(&queue.jobs, &turn.jobs)
        }
        for job in turn.jobs { job.runSynchronously(on: asUnownedTaskExecutor()) }
        turn.jobs.removeAll(keepingCapacity: true)
    }

    /// Runs the attached sources readable (`turn.readySources`), poked, or due by `now`.
    private func runDueSources(_ turn: inout Turn, now: ContinuousClock.Instant) {
        sources.withLock { sources in
            for source in sources.values
            where source.poked || turn.readySources.contains(source.fd) || (source.dueAt.map { $0 <= now } ?? false) {
                turn.sources.append(source)
                source.dueAt = nil
                source.poked = false
            }
        }
        for source in turn.sources { source.ready() }
        turn.sources.removeAll(keepingCapacity: true)
        turn.readySources.removeAll(keepingCapacity: true)
    }

    /// Asks every source when it is next due; the milliseconds until the earliest (-1: none).
    private func millisecondsToNextSource(_ turn: inout Turn, now: ContinuousClock.Instant) -> Int32 {
        let poked = sources.withLock { sources in
            turn.sources.append(contentsOf: sources.values)
            return sources.values.contains { $0.poked }
        }
        var earliest: Int32 = poked ? 0 : -1
        for source in turn.sources {
            guard let milliseconds = source.nextDue() else { continue }
            let wait = max(0, milliseconds)
            sources.withLock { _ in source.dueAt = now + .milliseconds(wait) }
            earliest = earliest < 0 ? wait : min(earliest, wait)
        }
        turn.sources.removeAll(keepingCapacity: true)
        return earliest
    }

    private func run() {
        threadID.store(UInt(pthread_self()), ordering: .releasing)
        var events = [epoll_event](repeating: epoll_event(), count: 64)
        var turn = Turn()
        while true {
            runQueuedJobs(&turn)
            var timeout = millisecondsToNextDeadline()
            let sourceTimeout = millisecondsToNextSource(&turn, now: .now)
            if sourceTimeout >= 0 { timeout = timeout < 0 ? sourceTimeout : min(timeout, sourceTimeout) }
            // Asleep only with nothing queued or changed; an enqueue from then on writes the wake-up.
            let mayBlock = runQueue.withLock { queue -> Bool in
                guard queue.jobs.isEmpty, !queue.stirred else { return false }
                queue.sleeping = true
                return true
            }
            let count = events.withUnsafeMutableBufferPointer { epoll_wait(epollFD, $0.baseAddress, 64, mayBlock ? timeout : 0) }
            if mayBlock { runQueue.withLock { $0.sleeping = false } }
            if count < 0 && errno != EINTR { continue }
            waiters.withLock { waiters in
                for index in 0..<max(0, Int(count)) {
                    let fd = events[index].data.fd
                    if fd == wakeFD {
                        var value: UInt64 = 0
                        _ = Glibc.read(wakeFD, &value, 8)
                        runQueue.withLock { $0.wakePending = false }
                        continue
                    }
                    if let waiter = waiters.removeValue(forKey: fd) {
                        turn.ready.append(waiter.continuation)
                    } else {
                        turn.readySources.append(fd)
                    }
                }
                let now = ContinuousClock.now
                for (fd, waiter) in waiters where waiter.deadline.map({ $0 <= now }) ?? false {
                    waiters.removeValue(forKey: fd)
                    var disarm = epoll_event()
                    disarm.data.fd = fd
                    epoll_ctl(epollFD, EPOLL_CTL_MOD, fd, &disarm)
                    turn.expired.append(waiter.continuation)
                }
            }
            for continuation in turn.ready { continuation.resume(returning: .ready) }
            for continuation in turn.expired { continuation.resume(returning: .timedOut) }
            turn.ready.removeAll(keepingCapacity: true)
            turn.expired.removeAll(keepingCapacity: true)
            runDueSources(&turn, now: .now)
        }
    }

    private func millisecondsToNextDeadline() -> Int32 {
        let next = waiters.withLock { waiters in
            waiters.values.reduce(nil as ContinuousClock.Instant?) { earliest, waiter in
                guard let deadline = waiter.deadline else { return earliest }
                return earliest.map { min($0, deadline) } ?? deadline
            }
        }
        guard let next else { return -1 }
        let remaining = next - ContinuousClock.now
        if remaining <= .zero { return 0 }
        return Int32(clamping: remaining.milliseconds)
    }
}
