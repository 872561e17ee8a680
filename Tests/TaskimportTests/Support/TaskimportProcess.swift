import Foundation

/// The built `taskimport`, run as a child process against the test database, its output
/// collected in files (no pipe can fill up and stall it).
enum TaskimportProcess {
    struct Result {
        var exitCode: Int32
        var standardOutput: String
        var standardError: String
    }

    /// The executable sits next to the test bundle in the build folder.
    static var executableURL: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("taskimport")
    }

    /// Runs taskimport with `arguments` (and `input` on its standard input) and waits for it to exit.
    static func run(_ arguments: [String], input: String? = nil, environment extra: [String: String] = [:]) async throws -> Result {
        var environment = ProcessInfo.processInfo.environment
        environment["DATABASE_URL"] = try await ImportTestDatabase.connectionString()
        environment["TASKBASE_ACTOR"] = nil
        environment.merge(extra) { _, new in new }

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("taskimport-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let outputURL = folder.appendingPathComponent("stdout"), errorURL = folder.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
        let output = try FileHandle(forWritingTo: outputURL), errors = try FileHandle(forWritingTo: errorURL)
        let inputURL = folder.appendingPathComponent("stdin")
        try Data((input ?? "").utf8).write(to: inputURL)
        let inputHandle = try FileHandle(forReadingFrom: inputURL)

        let process = Process()
        process.executableURL = executableURL
        process.arguments = arguments
        process.environment = environment
        process.standardInput = inputHandle
        process.standardOutput = output
        process.standardError = errors
        let status = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int32, any Error>) in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        try output.close()
        try errors.close()
        try inputHandle.close()
        return Result(
            exitCode: status,
            standardOutput: try String(contentsOf: outputURL, encoding: .utf8),
            standardError: try String(contentsOf: errorURL, encoding: .utf8))
    }
}
