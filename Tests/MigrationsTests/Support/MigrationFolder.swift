import Foundation
import Migrations

/// A temporary migrations folder for one test: a copy of the project's migrations, or
/// files written by the test.
struct MigrationFolder: Sendable {
    /// The folder's path.
    let path: String

    /// The repository's root, found from this file's path.
    static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// An empty folder, or one holding `files` (name → text).
    init(_ files: [String: String] = [:]) throws {
        path = NSTemporaryDirectory() + "taskbase-migrations-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        for (name, text) in files { try write(name, text) }
    }

    /// A copy of the project's own `migrations/`: its files (those up to version `last`, when
    /// given) and its reviewed comment edits. A test that writes later migrations of its own
    /// (0006, ...) copies through 0005, so the project's next migrations do not change it.
    static func project(through last: Int? = nil) throws -> MigrationFolder {
        let folder = try MigrationFolder()
        let source = packageRoot + "/migrations"
        for name in try FileManager.default.contentsOfDirectory(atPath: source) where name.hasSuffix(".sql") || name == SupersededChecksums.fileName {
            if let last, let version = Int(name.prefix(4)), version > last { continue }
            try FileManager.default.copyItem(atPath: source + "/" + name, toPath: folder.path + "/" + name)
        }
        return folder
    }

    /// The versions of the project's own migrations, in order.
    static var projectVersions: [Int64] {
        get throws {
            try FileManager.default.contentsOfDirectory(atPath: packageRoot + "/migrations")
                .filter { $0.hasSuffix(".sql") }.compactMap { Int64($0.prefix(4)) }.sorted()
        }
    }

    /// Writes (or overwrites) a file.
    func write(_ name: String, _ text: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path + "/" + name))
    }

    /// Removes a file.
    func remove(_ name: String) throws {
        try FileManager.default.removeItem(atPath: path + "/" + name)
    }

    /// The folder as the Migrations module sees it.
    var directory: MigrationDirectory { MigrationDirectory(path: path) }

    /// Deletes the folder.
    func delete() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
