import Foundation
import Glibc

/// A pipe for tests: bytes written to `write` are read back from `read`, which never blocks.
public final class TestPipe: Sendable {
    /// The read end (non-blocking).
    public let read: Int32
    /// The write end.
    public let write: Int32

    public init() {
        var ends: [Int32] = [0, 0]
        precondition(pipe(&ends) == 0, "pipe failed: \(errno)")
        (read, write) = (ends[0], ends[1])
        _ = fcntl(read, F_SETFL, fcntl(read, F_GETFL) | O_NONBLOCK)
    }

    deinit {
        close(read)
        close(write)
    }

    /// Writes one byte, which makes the read end readable.
    public func ring() {
        var byte: UInt8 = 1
        _ = Glibc.write(write, &byte, 1)
    }

    /// Everything that has arrived so far, as UTF-8 text (empty when nothing has).
    @discardableResult
    public func available() -> String {
        var text: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4_096)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(read, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            text += chunk[..<count]
        }
        return String(decoding: text, as: UTF8.self)
    }
}
