import CStopSignals
import Foundation
import Synchronization

/// Turns Ctrl-C (SIGINT), SIGTERM (`kill`, `timeout`, a service manager) and SIGHUP (a closed
/// terminal) into cancellation of the running command's task, so it can clean up (cancel the
/// running statement, roll back, close connections) and exit on its own with 128 + the signal
/// number; a second signal exits at once with that code.
///
/// `CommandRunner.main` makes the one watcher of the process as its first act, before the
/// command tree is even built. Until then the handlers CStopSignalsAtStart installs before the
/// program's libraries start record a signal, and the watcher takes it over: from the loader's
/// end on none of the signals kills the program the default way. A signal that comes before the
/// command's task exists is kept and cancels the task as soon as it starts.
///
/// The signal handler only records the signal's number (an atomic store) and writes it to this
/// watcher's pipe, the things a handler may safely do; a thread reading the pipe does the rest.
final class InterruptWatcher: @unchecked Sendable {
    /// The signals that stop a command the careful way.
    static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]
    /// Where the handler writes; set before the handler is installed, never while it can run.
    nonisolated(unsafe) private static var handlerDescriptor: Int32 = -1
    /// The first signal the handler saw, 0 before any: read without waiting for the pipe's reader.
    private static let firstSignal = Atomic<Int32>(0)

    private let lock = NSLock()
    private let pipeEnds: (read: Int32, write: Int32)
    private var task: Task<Void, any Error>?
    private var interrupts = 0
    /// The task was cancelled: by a signal or by `requestStop`.
    private var stopping = false

    /// Starts watching; from now on SIGINT, SIGTERM and SIGHUP no longer kill the process. Made
    /// once per process (`CommandRunner.main`).
    init() {
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) != 0 { fatalError("cannot create the interrupt pipe: errno \(errno)") }
        pipeEnds = (ends[0], ends[1])
        Self.handlerDescriptor = ends[1]
        // Initialised here, once, so that the handler never runs a static's lazy initialiser.
        _ = Self.firstSignal.load(ordering: .relaxed)
        for number in Self.signals {
            signal(number) { number in InterruptWatcher.record(number) }
        }
        // A signal the early handlers recorded before these replaced them, as if it came now.
        let early = taskbase_early_stop_signal()
        if early != 0 { Self.record(early) }
        Thread.detachNewThread { [self] in
            readInterrupts()
        }
    }

    /// What the handler does with signal `number`: keeps it as the first if none was, and
    /// hands it to the pipe's reader. Async-signal-safe.
    private static func record(_ number: Int32) {
        _ = firstSignal.compareExchange(expected: 0, desired: number, ordering: .relaxed)
        var byte = UInt8(truncatingIfNeeded: number)
        _ = write(handlerDescriptor, &byte, 1)
    }

    /// Stops the command as SIGTERM would, for a process told to stop by other means than a
    /// signal (a `taskserve` worker whose supervisor closed its lifeline). Unlike a signal it
    /// never counts as the second one that exits at once: a service manager that signals every
    /// process of the service while the supervisor also tells its workers to stop must not cut
    /// the workers' graceful stop short. Nothing happens before `CommandRunner.main` ran.
    static func requestStop() {
        guard handlerDescriptor >= 0 else { return }
        _ = firstSignal.compareExchange(expected: 0, desired: SIGTERM, ordering: .relaxed)
        var byte: UInt8 = 0
        _ = write(handlerDescriptor, &byte, 1)
    }

    /// The watcher of the command running in this task, if it stops on signals.
    @TaskLocal static var current: InterruptWatcher?

    /// The first signal that arrived, if any: the command was stopped by it. Known as soon as
    /// the handler ran, before the pipe's reader has cancelled anything.
    var receivedSignal: Int32? {
        let number = Self.firstSignal.load(ordering: .relaxed)
        return number == 0 ? nil : number
    }

    /// Cancels `task` on the first signal, including one that came before it started.
    func watch(_ task: Task<Void, any Error>) {
        let alreadyInterrupted = lock.withLock {
            self.task = task
            return receivedSignal != nil
        }
        if alreadyInterrupted { task.cancel() }
    }

    private func readInterrupts() {
        var byte: UInt8 = 0
        while true {
            let count = read(pipeEnds.read, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            guard count == 1 else { return }
            interrupted(by: Int32(byte))
        }
    }

    /// Signal `number`, or 0 for `requestStop`: the first of either cancels the task; a second
    /// signal exits at once.
    private func interrupted(by number: Int32) {
        let (signals, task, first) = lock.withLock {
            if number != 0 { interrupts += 1 }
            defer { stopping = true }
            return (interrupts, self.task, !stopping)
        }
        if signals > 1 { exit(128 + number) }
        if first { task?.cancel() }
    }
}
