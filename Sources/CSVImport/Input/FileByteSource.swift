#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Reads a file, a pipe or standard input straight from its file descriptor with `read(2)`,
/// so no intermediate `Data` is allocated per chunk.
public final class FileByteSource: ByteSource {
    private let descriptor: Int32
    private let closesOnDeinit: Bool
    /// Keeps a caller's `FileHandle` alive (and its descriptor open) while we read from it.
    private let handle: FileHandle?
    /// The name used in error messages: the path, or `standard input`.
    public let name: String
    /// The file's size when it is a regular file; `nil` for pipes and terminals.
    public let totalByteCount: Int?

    /// Opens the file at `path` for reading; it is closed when the source is released.
    public init(path: String) throws(ByteSourceError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw Self.error(operation: "open", name: path)
        }
        self.descriptor = descriptor
        self.closesOnDeinit = true
        self.handle = nil
        self.name = path
        self.totalByteCount = Self.regularFileSize(descriptor)
    }

    /// Reads from a `FileHandle` the caller owns (and closes).
    public init(fileHandle: FileHandle, name: String = "input") {
        self.descriptor = fileHandle.fileDescriptor
        self.closesOnDeinit = false
        self.handle = fileHandle
        self.name = name
        self.totalByteCount = Self.regularFileSize(descriptor)
    }

    /// Standard input, left open when the source is released.
    public static func standardInput() -> FileByteSource {
        FileByteSource(descriptor: STDIN_FILENO, name: "standard input")
    }

    private init(descriptor: Int32, name: String) {
        self.descriptor = descriptor
        self.closesOnDeinit = false
        self.handle = nil
        self.name = name
        self.totalByteCount = Self.regularFileSize(descriptor)
    }

    deinit {
        if closesOnDeinit {
            close(descriptor)
        }
    }

    /// Reads the next bytes, retrying when a signal interrupts the call.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return 0 }
        while true {
            let count = systemRead(descriptor, base, buffer.count)
            if count >= 0 { return count }
            if errno != EINTR {
                throw Self.error(operation: "read", name: name)
            }
        }
    }

    private static func regularFileSize(_ descriptor: Int32) -> Int? {
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int(info.st_size)
    }

    private static func error(operation: String, name: String) -> ByteSourceError {
        let code = errno
        return ByteSourceError(operation: operation, name: name, code: code, reason: String(cString: strerror(code)))
    }
}

/// `read(2)` under a name that does not collide with `FileByteSource.read(into:)`.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
