import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A file written beside its destination and put in place in one step, so that whoever reads
/// the destination finds what was there before or the whole new file, never part of it: an
/// export cut off, refused, stopped by a signal or failing half-way leaves the old file alone.
///
/// The new file is `.NAME.RANDOM.part` in the destination's directory (a rename only stays
/// atomic within one file system). `commit()` flushes it to disk, gives it the permissions of
/// the file it replaces (an export someone made private stays private; a new file gets the
/// umask's), and renames it over the destination. Anything else, `abandon()` or the last
/// reference going away, removes it.
public final class AtomicFile: @unchecked Sendable {
    /// Where the file goes.
    public let destination: URL
    /// Where it is written until `commit()`.
    public let temporary: URL
    /// The temporary file, open for writing, until `commit()` or `abandon()`.
    public let fileDescriptor: Int32
    private let lock = NSLock()
    private var finished = false

    /// A new, empty temporary file beside `destination` (beside the file it links to, when it
    /// is a symbolic link: the link stays and its file is replaced). Fails with the path and
    /// the reason when the folder is missing or not writable, or `destination` is a folder.
    public init(replacing destination: URL) throws(AtomicFileError) {
        let destination = try Self.target(of: destination)
        self.destination = destination
        temporary = Self.beside(destination)
        fileDescriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard fileDescriptor >= 0 else { throw AtomicFileError(destination, reason: Self.lastError()) }
    }

    deinit { abandon() }

    /// Writes all of `bytes` to the temporary file.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(AtomicFileError) {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(fileDescriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw AtomicFileError(destination, reason: Self.lastError())
            }
            offset += written
        }
    }

    /// Flushes the file to disk and puts it at the destination; afterwards nothing is left
    /// beside it. On failure the destination is as it was and the temporary file is removed.
    public func commit() throws(AtomicFileError) {
        guard let descriptor = finish() else { throw AtomicFileError(destination, reason: "the file was already committed or abandoned") }
        defer { unlink(temporary.path) }
        let synced = fsync(descriptor) == 0
        let reason = synced ? nil : Self.lastError()
        let closed = close(descriptor) == 0
        guard synced, closed else { throw AtomicFileError(destination, reason: reason ?? Self.lastError()) }
        try Self.place(temporary, at: destination)
    }

    /// Closes and removes the temporary file; the destination is untouched. Harmless after
    /// `commit()` and when called twice.
    public func abandon() {
        guard let descriptor = finish() else { return }
        close(descriptor)
        unlink(temporary.path)
    }

    /// The descriptor to close, the first time the file is committed or abandoned; nil after.
    private func finish() -> Int32? {
        lock.withLock {
            defer { finished = true }
            return finished ? nil : fileDescriptor
        }
    }

    /// Gives `temporary` the permissions of the file at `destination`, if there is one, and
    /// renames it there.
    private static func place(_ temporary: URL, at destination: URL) throws(AtomicFileError) {
        var existing = stat()
        if stat(destination.path, &existing) == 0, chmod(temporary.path, existing.st_mode & 0o7777) != 0 {
            throw AtomicFileError(destination, reason: lastError())
        }
        guard rename(temporary.path, destination.path) == 0 else { throw AtomicFileError(destination, reason: lastError()) }
    }

    /// The file `destination` names: the file a symbolic link leads to (so the link stays), the
    /// path itself otherwise. A folder is refused: renaming over it would fail only at the end.
    static func target(of destination: URL) throws(AtomicFileError) -> URL {
        var target = destination
        var link = stat()
        if lstat(destination.path, &link) == 0, link.st_mode & S_IFMT == S_IFLNK, let resolved = realpath(destination.path, nil) {
            target = URL(fileURLWithPath: String(cString: resolved))
            free(resolved)
        }
        var status = stat()
        if stat(target.path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
            throw AtomicFileError(destination, reason: "a folder, not a file")
        }
        return target
    }

    /// `.NAME.RANDOM.part` in `destination`'s directory.
    static func beside(_ destination: URL) -> URL {
        let random = String(UInt64.random(in: 0...UInt64.max), radix: 36)
        return destination.deletingLastPathComponent().appendingPathComponent(".\(destination.lastPathComponent).\(random).part")
    }

    private static func lastError() -> String { String(cString: strerror(errno)) }
}

/// Why a file could not be written or put in place: its path and the system's reason.
public struct AtomicFileError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The destination's path.
    public let path: String
    /// What the system said.
    public let reason: String

    init(_ destination: URL, reason: String) {
        path = destination.path
        self.reason = reason
    }

    /// `PATH: reason`.
    public var description: String { "\(path): \(reason)" }
}
