import Foundation
import TaskbaseTestSupport

/// The built `taskimport`, run as a child process against the test database.
enum TaskimportProcess {
    typealias Result = ProgramRun

    /// Runs taskimport with `arguments` (and `input` on its standard input) and waits for it to exit.
    static func run(_ arguments: [String], input: String? = nil, environment extra: [String: String] = [:]) async throws -> Result {
        var environment = ProcessInfo.processInfo.environment
        environment["DATABASE_URL"] = try await ImportTestDatabase.connectionString()
        environment["TASKBASE_ACTOR"] = nil
        environment.merge(extra) { _, new in new }
        return try await BuiltProgram.run(BuiltProgram.url("taskimport"), arguments: arguments, environment: environment, input: input)
    }
}
