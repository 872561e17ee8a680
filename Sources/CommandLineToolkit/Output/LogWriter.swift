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
    /// The most bytes one system call writes: nil for a whole batch at once.
    private let writeLimit: Int?

    /// The most bytes a pipe writes whole, never mixed with another writer's (`PIPE_BUF` on Linux).
    public static let pipeAtomicBytes = 4_096
    private let pending = Mutex(Pending())
    /// Held while a batch is taken and written, so batches reach the descriptor in order.
    private let writing = Mutex(())

    /// A writer to `stream` that holds lines for at most `delay`, and writes at once when
    /// `capacity` bytes wait. `sharedWithOtherProcesses` (a `taskserve` worker, whose stderr
    /// its siblings write to as well): a batch goes out in writes of whole lines of at most
    /// `pipeAtomicBytes` each, which a pipe never interleaves with another process's writes;
    /// a single line longer than that is written on its own.
    public convenience init(
        stream: StandardStream, delay: Duration = .milliseconds(50), capacity: Int = 64 << 10, sharedWithOtherProcesses: Bool = false
    ) {
        self.init(
            fileDescriptor: stream.fileDescriptor, delay: delay, capacity: capacity,
            writeLimit: sharedWithOtherProcesses ? Self.pipeAtomicBytes : nil)
    }

    /// A writer to an open descriptor, which it does not close; with `writeLimit`, no system
    /// call writes more than that many bytes unless one line is longer.
    public init(fileDescriptor: Int32, delay: Duration = .milliseconds(50), capacity: Int = 64 << 10, writeLimit: Int? = nil) {
        self.fileDescriptor = fileDescriptor
        self.delay = delay
        self.capacity = capacity
        self.writeLimit = writeLimit
    }

    /// `bytes` (lines, each ending in a newline) cut into pieces of whole lines of at most
    /// `limit` bytes; a line longer than `limit` is a piece of its own.
    static func pieces(of bytes: [UInt8], limit: Int) -> [Range<Int>] {
        var pieces: [Range<Int>] = []
        var start = 0
        var lastLineEnd = 0
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "\n") || index == bytes.count - 1 {
                let end = index + 1
                if end - start > limit && lastLineEnd > start {
                    pieces.append(start..<lastLineEnd)
                    start = lastLineEnd
                }
                lastLineEnd = end
            }
            index += 1
        }
        if lastLineEnd > start { pieces.append(start..<lastLineEnd) }
        return pieces
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
            bytes.withUnsafeBytes { buffer in
                guard let writeLimit else {
                    try? StandardStream.writeAll(buffer, to: fileDescriptor)
                    return
                }
                for piece in Self.pieces(of: bytes, limit: writeLimit) {
                    try? StandardStream.writeAll(UnsafeRawBufferPointer(rebasing: buffer[piece]), to: fileDescriptor)
                }
            }
        }
    }
}
