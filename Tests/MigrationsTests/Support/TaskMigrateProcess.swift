import Foundation

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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["DATABASE_URL"] = databaseURL
        environment["TASKBASE_MIGRATIONS_DIR"] = folder.path
        process.environment = environment
        process.currentDirectoryURL = URL(fileURLWithPath: folder.path)
        let stdoutPath = folder.path + "/.stdout-" + UUID().uuidString
        let stderrPath = folder.path + "/.stderr-" + UUID().uuidString
        _ = FileManager.default.createFile(atPath: stdoutPath, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        let stdout = try FileHandle(forWritingTo: URL(fileURLWithPath: stdoutPath))
        let stderr = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
        process.standardOutput = stdout
        process.standardError = stderr
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        try stdout.close()
        try stderr.close()
        defer {
            try? FileManager.default.removeItem(atPath: stdoutPath)
            try? FileManager.default.removeItem(atPath: stderrPath)
        }
        return Outcome(
            status: status,
            stdout: (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "")
    }
}
