import Foundation
import Synchronization

/// Log lines to a file descriptor, gathered for up to `delay` (or until `capacity` bytes wait),
/// so that a busy server writes its log in one system call per batch instead of one per line.
/// Lines keep their order; `flush()` writes what waits at once (before exiting, or before a
/// line that must not wait). A failed write drops that batch: a log must not stop the server.
public final class LogWriter: Sendable {
    private struct Pending {
        var bytes: [UInt8] = []
        var flushScheduled = false
    }

    private let fileDescriptor: Int32
    private let delay: Duration
    private let capacity: Int
    private let pending = Mutex(Pending())
    /// Held while a batch is taken and written, so batches reach the descriptor in order.
    private let writing = Mutex(())

    /// A writer to `stream` that holds lines for at most `delay`, and writes at once when
    /// `capacity` bytes wait.
    public convenience init(stream: StandardStream, delay: Duration = .milliseconds(50), capacity: Int = 64 << 10) {
        self.init(fileDescriptor: stream.fileDescriptor, delay: delay, capacity: capacity)
    }

    /// A writer to an open descriptor, which it does not close.
    public init(fileDescriptor: Int32, delay: Duration = .milliseconds(50), capacity: Int = 64 << 10) {
        self.fileDescriptor = fileDescriptor
        self.delay = delay
        self.capacity = capacity
    }

    /// Adds `line` (ending in a newline) to the next batch.
    public func write(_ line: String) {
        let (full, schedule) = pending.withLock { pending -> (Bool, Bool) in
            pending.bytes.append(contentsOf: line.utf8)
            if pending.bytes.count >= capacity { return (true, false) }
            guard !pending.flushScheduled else { return (false, false) }
            pending.flushScheduled = true
            return (false, true)
        }
        if full {
            flush()
        } else if schedule {
            Task { [self] in
                try? await Task.sleep(for: delay)
                flush()
            }
        }
    }

    /// Writes every line waiting now.
    public func flush() {
        writing.withLock { _ in
            let bytes = pending.withLock { pending -> [UInt8] in
                pending.flushScheduled = false
                defer { pending.bytes.removeAll(keepingCapacity: true) }
                return pending.bytes
            }
            guard !bytes.isEmpty else { return }
            bytes.withUnsafeBytes { try? StandardStream.writeAll($0, to: fileDescriptor) }
        }
    }
}
