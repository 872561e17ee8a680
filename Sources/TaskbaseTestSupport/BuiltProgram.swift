import Foundation

/// What a program run printed and how it exited.
public struct ProgramRun: Sendable {
    /// The exit status.
    public var exitCode: Int32
    /// Everything it wrote to standard output.
    public var standardOutput: String
    /// Everything it wrote to standard error.
    public var standardError: String

    /// A finished run, for tests that start the program their own way (feeding its input slowly).
    public init(exitCode: Int32, standardOutput: String, standardError: String) {
        self.exitCode = exitCode
        self.standardOutput = standardOutput
        self.standardError = standardError
    }
}

/// The package's own executables, run as child processes the way people run them.
public enum BuiltProgram {
    /// The executable `name` of this build; it sits next to the test bundle.
    public static func url(_ name: String) -> URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent(name)
    }

    /// Runs `executable` to the end without blocking a thread while it runs. Output goes to
    /// files (no pipe can fill up and stall the child); `input` is its standard input.
    public static func run(
        _ executable: URL, arguments: [String], environment: [String: String], input: String? = nil,
        currentDirectory: URL? = nil
    ) async throws -> ProgramRun {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("taskbase-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let outputURL = folder.appendingPathComponent("stdout"), errorURL = folder.appendingPathComponent("stderr")
        let inputURL = folder.appendingPathComponent("stdin")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
        try Data((input ?? "").utf8).write(to: inputURL)
        let output = try FileHandle(forWritingTo: outputURL), errors = try FileHandle(forWritingTo: errorURL)
        let inputHandle = try FileHandle(forReadingFrom: inputURL)

        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
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
        return ProgramRun(
            exitCode: status,
            standardOutput: try String(contentsOf: outputURL, encoding: .utf8),
            standardError: try String(contentsOf: errorURL, encoding: .utf8))
    }
}
