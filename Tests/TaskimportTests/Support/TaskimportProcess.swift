import Foundation
import TaskbaseTestSupport

/// The built `taskimport`, run as a child process against the test database.
enum TaskimportProcess {
    typealias Result = ProgramRun

    /// Runs taskimport with `arguments` (and `input` on its standard input) and waits for it to exit.
    static func run(_ arguments: [String], input: String? = nil, environment extra: [String: String] = [:]) async throws -> Result {
        try await BuiltProgram.run(BuiltProgram.url("taskimport"), arguments: arguments, environment: try await environment(extra), input: input)
    }

    /// Starts taskimport with `arguments` and leaves it running, for a test that signals it.
    static func start(_ arguments: [String]) async throws -> RunningProgram {
        try BuiltProgram.start(BuiltProgram.url("taskimport"), arguments: arguments, environment: try await environment([:]))
    }

    /// This process's environment, reaching the test database, with no acting user unless `extra` names one.
    static func environment(_ extra: [String: String]) async throws -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["DATABASE_URL"] = try await ImportTestDatabase.connectionString()
        environment["TASKBASE_ACTOR"] = nil
        environment.merge(extra) { _, new in new }
        return environment
    }
}
