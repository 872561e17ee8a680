import CommandLineToolkit
import Foundation
import SafeFiles

/// A file a program writes for its operator (`taskctl export --output`, `taskimport
/// --reject-file`), put in place only when `commit()` says it is whole: a refused, failed or
/// interrupted run leaves what was at the path before, with nothing beside it. Its failures are
/// the programs' one-line errors: a folder that is missing or not writable is a usage error,
/// said before anything else is done.
public final class OutputFile: Sendable {
    /// The path as the operator gave it.
    public let path: String
    private let file: AtomicFile

    /// Starts the file beside `path`; nothing at `path` changes yet.
    public init(path: String) throws(CommandFailure) {
        self.path = path
        // An empty path would be read as the working folder, and the refusal would name that.
        guard !path.isEmpty else {
            throw CommandFailure("cannot write to an empty path; name a file in a folder that exists and is writable", exitCode: .usage)
        }
        do {
            file = try AtomicFile(replacing: URL(fileURLWithPath: path))
        } catch {
            throw CommandFailure("cannot write \(error); name a file in a folder that exists and is writable", exitCode: .usage)
        }
    }

    /// Appends `bytes`.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(CommandFailure) {
        do { try file.write(bytes) } catch { throw CommandFailure("cannot write \(error)") }
    }

    /// Puts the whole file at `path`.
    public func commit() throws(CommandFailure) {
        do { try file.commit() } catch { throw CommandFailure("cannot write \(error)") }
    }

    /// Drops what was written; `path` stays as it was. Harmless after `commit()`.
    public func abandon() { file.abandon() }
}
