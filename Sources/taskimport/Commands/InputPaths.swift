import CommandLineToolkit
import Foundation

/// Checks on the paths taskimport is given, made before anything is opened for writing.
enum InputPaths {
    /// Refuses a directory as the input file: a usage error (exit 2), not a rejected input.
    static func checkInput(_ path: String) throws(UsageError) {
        guard path != "-" else { return }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw UsageError("\(path) is a directory; give the CSV file to import (or - for standard input)")
        }
    }

    /// Refuses a reject file that is the input itself, by name, symbolic link or hard link
    /// (the same device and inode), or standard input's file: writing it would empty the input.
    static func checkRejectFile(_ rejectPath: String?, input: String) throws(UsageError) {
        guard let rejectPath, let reject = identity(path: rejectPath) else { return }
        let source = input == "-" ? identity(descriptor: STDIN_FILENO) : identity(path: input)
        if let source, source == reject {
            throw UsageError(
                "--reject-file \(rejectPath) is the input file\(input == "-" ? " (standard input)" : " \(input)") itself; "
                    + "writing rejects there would overwrite it: choose another path")
        }
    }

    private struct FileIdentity: Equatable {
        var device: UInt64
        var inode: UInt64
    }

    private static func identity(path: String) -> FileIdentity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    private static func identity(descriptor: Int32) -> FileIdentity? {
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }
}
