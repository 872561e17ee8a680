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

    /// A copy of the project's own `migrations/`.
    static func project() throws -> MigrationFolder {
        let folder = try MigrationFolder()
        let source = packageRoot + "/migrations"
        for name in try FileManager.default.contentsOfDirectory(atPath: source) where name.hasSuffix(".sql") {
            try FileManager.default.copyItem(atPath: source + "/" + name, toPath: folder.path + "/" + name)
        }
        return folder
    }

    /// The versions of the project's own migrations, in order: tests count on these rather
    /// than on a number that every new migration would change.
    static let projectVersions: [Int64] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: packageRoot + "/migrations")) ?? []
        return names.filter { $0.hasSuffix(".sql") }.compactMap { Int64($0.prefix(4)) }.sorted()
    }()

    /// The file name of the migration `offset` versions after the project's newest one
    /// (1: the next), as a test adds it to a copy of the project.
    static func laterName(_ offset: Int64, _ name: String) -> String {
        String(format: "%04lld_%@.sql", (projectVersions.last ?? 0) + offset, name)
    }

    /// The version `offset` after the project's newest.
    static func laterVersion(_ offset: Int64) -> Int64 { (projectVersions.last ?? 0) + offset }

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
