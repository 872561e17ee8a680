import Foundation

/// A program run as a child process, its output captured in files (never pipes, so a chatty
/// child cannot stall on a full pipe) and its end awaited without blocking a Swift thread.
final class ChildProcess: Sendable {
    /// How a finished process ended and what it printed.
    struct Outcome: Sendable, CustomStringConvertible {
        var status: Int32
        var reason: Process.TerminationReason
        var standardOutput: String
        var standardError: String

        var description: String { "exit \(status)\(reason == .uncaughtSignal ? " (signal)" : ""); stderr: \(standardError)" }
    }

    private let process: Process
    private let outputURL: URL
    private let errorURL: URL
    private let ended: Task<Void, Never>

    /// Starts `executable` with `arguments`; `environment` is added to this process's own.
    init(_ executable: URL, _ arguments: [String], environment: [String: String] = [:]) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reliability-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        outputURL = folder.appendingPathComponent("stdout")
        errorURL = folder.appendingPathComponent("stderr")
        try Data().write(to: outputURL)
        try Data().write(to: errorURL)
        process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: outputURL)
        process.standardError = try FileHandle(forWritingTo: errorURL)
        let (stream, continuation) = AsyncStream<Void>.makeStream()
        process.terminationHandler = { _ in continuation.finish() }
        try process.run()
        ended = Task { for await _ in stream {} }
    }

    /// The child's process id, e.g. to send it a signal.
    var processIdentifier: Int32 { process.processIdentifier }

    /// Waits for the end and reads what the child printed.
    func finish() async -> Outcome {
        await ended.value
        let output = (try? String(contentsOf: outputURL, encoding: .utf8)) ?? ""
        let errors = (try? String(contentsOf: errorURL, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(at: outputURL.deletingLastPathComponent())
        return Outcome(status: process.terminationStatus, reason: process.terminationReason, standardOutput: output, standardError: errors)
    }

    /// Runs a command to its end.
    static func run(_ executable: URL, _ arguments: [String], environment: [String: String] = [:]) async throws -> Outcome {
        try await ChildProcess(executable, arguments, environment: environment).finish()
    }
}

/// Where the package's own programs and scripts are.
enum PackagePaths {
    /// The package's root folder.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// `migrations/`.
    static let migrations = root.appendingPathComponent("migrations")

    /// A script under `scripts/`.
    static func script(_ name: String) -> URL { root.appendingPathComponent("scripts").appendingPathComponent(name) }

    /// A built executable of the package: it sits next to the test bundle in the build folder.
    static func executable(_ name: String) -> URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent(name)
    }
}
