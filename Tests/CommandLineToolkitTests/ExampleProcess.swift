import Foundation
import TaskbaseTestSupport

/// The built `toolkit-example`, run as a child process (`BuiltProgram`).
enum ExampleProcess {
    /// The executable sits next to the test bundle in the build folder.
    static var executableURL: URL { BuiltProgram.url("toolkit-example") }

    /// Runs to the end with `arguments`.
    static func run(_ arguments: [String]) async throws -> ProgramRun {
        try await BuiltProgram.run(executableURL, arguments: arguments, environment: ProcessInfo.processInfo.environment)
    }

    /// Starts with `arguments` and leaves it running.
    static func start(_ arguments: [String]) throws -> RunningProgram {
        try BuiltProgram.start(executableURL, arguments: arguments, environment: ProcessInfo.processInfo.environment)
    }
}
