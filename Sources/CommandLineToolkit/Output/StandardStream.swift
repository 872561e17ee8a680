import Foundation

/// Standard output or standard error, written unbuffered through the file descriptor.
///
/// Writing straight to the descriptor keeps data and messages in the order they were produced;
/// do not mix it with `print` on the same stream, whose buffer is flushed later.
public enum StandardStream: Sendable {
    /// Where data goes.
    case standardOutput
    /// Where errors, warnings and progress go.
    case standardError

    /// The POSIX file descriptor (1 or 2).
    public var fileDescriptor: Int32 {
        switch self {
        case .standardOutput: STDOUT_FILENO
        case .standardError: STDERR_FILENO
        }
    }

    /// Whether a person is watching: the stream is a terminal, not a pipe or a file.
    public var isTerminal: Bool {
        isatty(fileDescriptor) == 1
    }

    /// Writes `text` as UTF-8.
    public func write(_ text: String) throws(OutputError) {
        var failure: OutputError?
        Array(text.utf8).withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Void in
            do throws(OutputError) {
                try Self.writeAll(bytes, to: fileDescriptor)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
    }

    /// Writes `bytes` as they are (an export's buffer); a failure is an `OutputError` naming the cause.
    public func write(bytes: UnsafeRawBufferPointer) throws(OutputError) {
        try Self.writeAll(bytes, to: fileDescriptor)
    }

    /// Writes every byte to `descriptor`, retrying short and interrupted writes.
    static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) throws(OutputError) {
        var offset = 0
        while offset < bytes.count {
            let written = Foundation.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw OutputError(code: errno)
            }
            offset += written
        }
    }
}
