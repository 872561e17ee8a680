import Foundation

/// What a program run printed and how it exited.
public struct ProgramRun: Sendable, CustomStringConvertible {
    /// The exit status, or the signal's number when `killedBySignal`.
    public var exitCode: Int32
    /// True when a signal ended it.
    public var killedBySignal: Bool = false
    /// Everything it wrote to standard output.
    public var standardOutput: String
    /// Everything it wrote to standard error.
    public var standardError: String

    /// For failure messages.
    public var description: String { "\(killedBySignal ? "killed by signal" : "exit") \(exitCode); stderr: \(standardError)" }

    /// A finished run, for tests that start the program their own way (feeding its input slowly).
    public init(exitCode: Int32, killedBySignal: Bool = false, standardOutput: String, standardError: String) {
        self.exitCode = exitCode
        self.killedBySignal = killedBySignal
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

    /// This process's environment with `overrides` on top, for a child that needs both.
    public static func environment(adding overrides: [String: String]) -> [String: String] {
        ProcessInfo.processInfo.environment.merging(overrides) { _, new in new }
    }

    /// Runs `executable` to the end without blocking a thread while it runs (a `RunningProgram`:
    /// output to files, so no pipe can fill up and stall the child); `input` is its standard input.
    public static func run(
        _ executable: URL, arguments: [String], environment: [String: String], input: String? = nil,
        currentDirectory: URL? = nil
    ) async throws -> ProgramRun {
        try await RunningProgram(
            executable, arguments: arguments, environment: environment, input: input, currentDirectory: currentDirectory
        ).finish()
    }

    /// Starts `executable` and leaves it running, for a test that reads its output meanwhile or
    /// signals it.
    public static func start(
        _ executable: URL, arguments: [String], environment: [String: String], input: String? = nil,
        currentDirectory: URL? = nil
    ) throws -> RunningProgram {
        try RunningProgram(executable, arguments: arguments, environment: environment, input: input, currentDirectory: currentDirectory)
    }
}
