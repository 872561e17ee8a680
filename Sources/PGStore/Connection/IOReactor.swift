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
final class IOReactor: Sendable {
    static let shared = IOReactor()

    private struct Waiter {
        var continuation: UnsafeContinuation<SocketReadiness, Never>
        var deadline: ContinuousClock.Instant?
    }

    private let epollFD: Int32
    private let wakeFD: Int32
    private let waiters = Mutex<[Int32: Waiter]>([:])

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
            if deadline != nil { wake() }
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

    private func run() {
        var events = [epoll_event](repeating: epoll_event(), count: 64)
        while true {
            let timeout = millisecondsToNextDeadline()
            let count = events.withUnsafeMutableBufferPointer { epoll_wait(epollFD, $0.baseAddress, 64, timeout) }
            if count < 0 && errno != EINTR { continue }
            var ready: [UnsafeContinuation<SocketReadiness, Never>] = []
            var expired: [UnsafeContinuation<SocketReadiness, Never>] = []
            waiters.withLock { waiters in
                for index in 0..<max(0, Int(count)) {
                    let fd = events[index].data.fd
                    if fd == wakeFD {
                        var value: UInt64 = 0
                        _ = Glibc.read(wakeFD, &value, 8)
                        continue
                    }
                    if let waiter = waiters.removeValue(forKey: fd) { ready.append(waiter.continuation) }
                }
                let now = ContinuousClock.now
                for (fd, waiter) in waiters where waiter.deadline.map({ $0 <= now }) ?? false {
                    waiters.removeValue(forKey: fd)
                    var disarm = epoll_event()
                    disarm.data.fd = fd
                    epoll_ctl(epollFD, EPOLL_CTL_MOD, fd, &disarm)
                    expired.append(waiter.continuation)
                }
            }
            for continuation in ready { continuation.resume(returning: .ready) }
            for continuation in expired { continuation.resume(returning: .timedOut) }
        }
    }

    private func millisecondsToNextDeadline() -> Int32 {
        let next = waiters.withLock { waiters in waiters.values.compactMap(\.deadline).min() }
        guard let next else { return -1 }
        let remaining = next - ContinuousClock.now
        if remaining <= .zero { return 0 }
        let (seconds, attoseconds) = remaining.components
        let millis = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: millis)
    }
}
