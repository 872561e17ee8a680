import Foundation

/// Turns Ctrl-C (SIGINT), SIGTERM (`kill`, `timeout`, a service manager) and SIGHUP (a closed
/// terminal) into cancellation of the running command's task, so it can clean up (cancel the
/// running statement, roll back, close connections) and exit on its own with 128 + the signal
/// number; a second signal exits at once with that code.
///
/// The signal handler is installed synchronously and only writes the signal's number to this
/// watcher's pipe (the one thing a handler may safely do); a thread reading the pipe does the
/// rest, so no signal is lost between start-up and the command's first line of output.
final class InterruptWatcher: @unchecked Sendable {
    /// The signals that stop a command the careful way.
    static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]
    private static let stopByte: UInt8 = 0
    /// Where the handler writes; set before the handler is installed, never while it can run.
    nonisolated(unsafe) private static var handlerDescriptor: Int32 = -1

    private let lock = NSLock()
    private let pipeEnds: (read: Int32, write: Int32)
    private var task: Task<Void, any Error>?
    private var interrupts = 0
    private var firstSignal: Int32?

    /// Starts watching; until `stop()` SIGINT, SIGTERM and SIGHUP no longer kill the process.
    init() {
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) != 0 { fatalError("cannot create the interrupt pipe: errno \(errno)") }
        pipeEnds = (ends[0], ends[1])
        Self.handlerDescriptor = ends[1]
        for number in Self.signals {
            signal(number) { number in
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(InterruptWatcher.handlerDescriptor, &byte, 1)
            }
        }
        Thread.detachNewThread { [self] in
            readInterrupts()
        }
    }

    /// The watcher of the command running in this task, if it stops on signals.
    @TaskLocal static var current: InterruptWatcher?

    /// The first signal that arrived, if any: the command was stopped by it.
    var receivedSignal: Int32? {
        lock.withLock { firstSignal }
    }

    /// Cancels `task` on the first signal, including one that came before it started.
    func watch(_ task: Task<Void, any Error>) {
        let alreadyInterrupted = lock.withLock {
            self.task = task
            return interrupts > 0
        }
        if alreadyInterrupted { task.cancel() }
    }

    /// Stops watching and gives the signals their default meaning back.
    func stop() {
        for number in Self.signals { signal(number, SIG_DFL) }
        var byte = Self.stopByte
        _ = write(pipeEnds.write, &byte, 1)
    }

    private func readInterrupts() {
        defer {
            close(pipeEnds.read)
            close(pipeEnds.write)
        }
        var byte: UInt8 = 0
        while true {
            let count = read(pipeEnds.read, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            guard count == 1, byte != Self.stopByte else { return }
            interrupted(by: Int32(byte))
        }
    }

    private func interrupted(by number: Int32) {
        let (count, task) = lock.withLock {
            interrupts += 1
            if firstSignal == nil { firstSignal = number }
            return (interrupts, self.task)
        }
        if count == 1 {
            task?.cancel()
        } else {
            exit(128 + number)
        }
    }
}
