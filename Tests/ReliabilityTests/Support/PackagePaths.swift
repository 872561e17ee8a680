import Foundation
import TaskbaseTestSupport

/// Where the package's own programs and scripts are.
enum PackagePaths {
    /// The package's root folder.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// `migrations/`.
    static let migrations = URL(fileURLWithPath: TestDatabases.migrationsDirectory)

    /// A script under `scripts/`.
    static func script(_ name: String) -> URL { root.appendingPathComponent("scripts").appendingPathComponent(name) }
}
