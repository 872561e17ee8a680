import Foundation

/// Turns Ctrl-C (SIGINT) into cancellation of the running command's task, so it can clean up
/// (roll back, stop listening, close connections) and exit on its own; a second Ctrl-C exits
/// at once with `ExitCode.interrupted`.
///
/// The signal handler is installed synchronously and only writes a byte to this watcher's pipe
/// (the one thing a handler may safely do); a thread reading the pipe does the rest, so no
/// Ctrl-C is lost between start-up and the command's first line of output.
final class InterruptWatcher: @unchecked Sendable {
    private static let interruptByte: UInt8 = 1
    private static let stopByte: UInt8 = 0
    /// Where the handler writes; set before the handler is installed, never while it can run.
    nonisolated(unsafe) private static var handlerDescriptor: Int32 = -1

    private let lock = NSLock()
    private let pipeEnds: (read: Int32, write: Int32)
    private var task: Task<Void, any Error>?
    private var interrupts = 0

    /// Starts watching; until `stop()` SIGINT no longer kills the process.
    init() {
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) != 0 { fatalError("cannot create the interrupt pipe: errno \(errno)") }
        pipeEnds = (ends[0], ends[1])
        Self.handlerDescriptor = ends[1]
        signal(SIGINT) { _ in
            var byte = InterruptWatcher.interruptByte
            _ = write(InterruptWatcher.handlerDescriptor, &byte, 1)
        }
        Thread.detachNewThread { [self] in
            readInterrupts()
        }
    }

    /// Cancels `task` on the first Ctrl-C, including one that came before it started.
    func watch(_ task: Task<Void, any Error>) {
        let alreadyInterrupted = lock.withLock {
            self.task = task
            return interrupts > 0
        }
        if alreadyInterrupted { task.cancel() }
    }

    /// Stops watching and gives SIGINT its default meaning back.
    func stop() {
        signal(SIGINT, SIG_DFL)
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
            guard count == 1, byte == Self.interruptByte else { return }
            interrupted()
        }
    }

    private func interrupted() {
        let (count, task) = lock.withLock {
            interrupts += 1
            return (interrupts, self.task)
        }
        if count == 1 {
            task?.cancel()
        } else {
            exit(ExitCode.interrupted.rawValue)
        }
    }
}
