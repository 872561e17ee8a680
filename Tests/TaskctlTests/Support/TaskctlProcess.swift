import Foundation
import TaskbaseTestSupport

/// What one run of `taskctl` did.
struct TaskctlResult: CustomStringConvertible {
    var exitCode: Int32
    var standardOutput: String
    var standardError: String

    /// Standard output parsed as JSON.
    func json() throws -> Any {
        try JSONSerialization.jsonObject(with: Data(standardOutput.utf8))
    }

    /// Standard output parsed as one JSON object.
    func object() throws -> [String: Any] {
        guard let object = try json() as? [String: Any] else { throw TaskctlProcess.Unexpected(description: "not an object: \(self)") }
        return object
    }

    /// Standard output parsed as a JSON array of objects.
    func objects() throws -> [[String: Any]] {
        guard let array = try json() as? [[String: Any]] else { throw TaskctlProcess.Unexpected(description: "not an array: \(self)") }
        return array
    }

    /// For failure messages.
    var description: String { "exit \(exitCode)\nstdout: \(standardOutput)\nstderr: \(standardError)" }
}

/// The built `taskctl` run as a child process against the test database, off Swift's
/// cooperative threads, with output collected in temporary files.
struct TaskctlProcess {
    struct Unexpected: Error, CustomStringConvertible {
        var description: String
    }

    /// The executable sits next to the test bundle in the build folder.
    static var executableURL: URL { BuiltProgram.url("taskctl") }

    /// The environment of a child: this process's, without any connection or actor settings,
    /// with `DATABASE_URL` set to the test database, then `overrides`.
    static func environment(_ overrides: [String: String] = [:]) async throws -> [String: String] {
        var environment = ProcessInfo.processInfo.environment.filter { key, _ in
            !key.hasPrefix("PG") && key != "DATABASE_URL" && key != "TASKBASE_ACTOR" && key != "TASKBASE_TEST_ADMIN_URL"
        }
        environment.merge(TestDatabases.childEnvironment(try await TestDatabases.shared.value)) { _, new in new }
        environment.merge(overrides) { _, new in new }
        return environment
    }

    /// Runs `taskctl arguments` (as `actor` when given) to the end, in a scratch directory.
    static func run(_ arguments: [String], as actor: String? = nil, environment overrides: [String: String] = [:]) async throws -> TaskctlResult {
        let environment = try await environment(overrides)
        let arguments = (actor.map { ["--as", $0] } ?? []) + arguments
        let run = try await BuiltProgram.run(
            executableURL, arguments: arguments, environment: environment, currentDirectory: FileManager.default.temporaryDirectory)
        return TaskctlResult(exitCode: run.exitCode, standardOutput: run.standardOutput, standardError: run.standardError)
    }
}
