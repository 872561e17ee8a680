import CSVImport
import Foundation
import Glibc
import Hashing

/// A request body written to an unlinked temporary file while it arrives, for routes that take
/// bodies too large to hold in memory (a CSV import): the server's memory stays flat however
/// large the body, and the handler reads it back as a file. Its SHA-256 is taken on the way in.
public final class SpooledBody: @unchecked Sendable {
    /// The body's size in bytes.
    public let byteCount: Int
    /// SHA-256 of the body.
    public let digest: [UInt8]
    private let file: FileHandle

    fileprivate init(file: FileHandle, byteCount: Int, digest: [UInt8]) {
        self.file = file
        self.byteCount = byteCount
        self.digest = digest
    }

    /// The body from its first byte, for one reader at a time (the route answering it).
    public func source() -> FileByteSource {
        _ = lseek(file.fileDescriptor, 0, SEEK_SET)
        return FileByteSource(fileHandle: file, name: "the request body")
    }

    /// The whole body in memory (tests and small bodies).
    public func bytes() throws -> [UInt8] {
        let source = source()
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = try chunk.withUnsafeMutableBytes { try source.read(into: $0) }
            if count == 0 { return bytes }
            bytes += chunk[..<count]
        }
    }
}

/// The file a body is being written to; used by the daemon's thread only.
final class BodySpool {
    private let file: FileHandle
    private var hasher: SHA256? = SHA256()
    /// Bytes written so far.
    private(set) var byteCount = 0

    /// A new unlinked file in `directory` (the system's temporary directory by default); nil
    /// when none can be made (the directory is missing, full or not writable).
    init?(directory: String = NSTemporaryDirectory()) {
        var template =
            Array((directory.hasSuffix("/") ? directory : directory + "/").utf8CString.dropLast()) + Array("taskserve-body-XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { return nil }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        file = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    /// Appends `count` bytes; false when the file could not take them (disk full).
    func append(_ data: UnsafeRawPointer, count: Int) -> Bool {
        var written = 0
        while written < count {
            let result = write(file.fileDescriptor, data + written, count - written)
            if result < 0 {
                if errno == EINTR { continue }
                return false
            }
            written += result
        }
        hasher?.update(UnsafeRawBufferPointer(start: data, count: count).bindMemory(to: UInt8.self))
        byteCount += count
        return true
    }

    /// The body, complete.
    func finish() -> SpooledBody {
        let digest = hasher.take()?.finalize() ?? []
        return SpooledBody(file: file, byteCount: byteCount, digest: digest)
    }
}
