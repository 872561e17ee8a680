import Foundation
import TaskbaseTestSupport

/// The built `taskmigrate`, run as a child process the way operators run it.
struct TaskMigrateProcess {
    /// What a run printed and how it exited.
    struct Outcome: Sendable {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static let executable = MigrationFolder.packageRoot + "/.build/debug/taskmigrate"

    /// Starts `taskmigrate arguments` against `databaseURL` and `folder`, and waits for it
    /// without blocking a thread.
    static func run(_ arguments: [String], databaseURL: String, folder: MigrationFolder) async throws -> Outcome {
        var environment = ProcessInfo.processInfo.environment
        environment["DATABASE_URL"] = databaseURL
        environment["TASKBASE_MIGRATIONS_DIR"] = folder.path
        let run = try await BuiltProgram.run(
            URL(fileURLWithPath: executable), arguments: arguments, environment: environment,
            currentDirectory: URL(fileURLWithPath: folder.path))
        return Outcome(status: run.exitCode, stdout: run.standardOutput, stderr: run.standardError)
    }
}
