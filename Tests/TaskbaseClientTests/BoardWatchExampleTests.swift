import Foundation
import TaskStoreContract
import TaskbaseTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `Examples/board-watch` as a new app developer runs it: against a real `taskserve` process,
/// with a token minted by `taskctl token create` the way `scripts/quickstart` mints one.
@Suite("The board-watch example against taskserve")
struct BoardWatchExampleTests {
    static let tokenKey = "board-watch example key"

    func taskctl(_ arguments: [String], _ environment: [String: String]) async throws -> ProgramRun {
        let run = try await BuiltProgram.run(BuiltProgram.url("taskctl"), arguments: arguments, environment: environment)
        #expect(run.exitCode == 0, "taskctl \(arguments.joined(separator: " ")): \(run)")
        return run
    }

    @Test("prints the board, then a change another user makes, and exits 0 on Ctrl-C")
    func watchesAndStops() async throws {
        var environment = TestDatabases.childEnvironment(try await TestDatabases.shared.value)
        environment["TASKBASE_TOKEN_KEY"] = Self.tokenKey
        environment["PATH"] = ProcessInfo.processInfo.environment["PATH"]
        let suffix = NameSource().next().lowercased()
        let owner = "watch.owner.\(suffix)@example.com", writer = "watch.writer.\(suffix)@example.com", team = "W" + suffix.uppercased()
        _ = try await taskctl(["user", "add", owner, "--name", "Owner"], environment)
        _ = try await taskctl(["user", "add", writer, "--name", "Writer"], environment)
        _ = try await taskctl(["team", "create", team, "--name", "Watched", "--as", owner], environment)
        _ = try await taskctl(["team", "add-member", team, writer, "--role", "member", "--as", owner], environment)
        _ = try await taskctl(["task", "add", "--team", team, "Write the docs", "--category", "Docs", "--as", owner], environment)
        let token = try await taskctl(["token", "create", owner, "--name", "board-watch", "--expires-in", "1h"], environment)
            .standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let serve = try await ServeProcess(environment: environment)

        let watch = try BuiltProgram.start(
            BuiltProgram.url("board-watch"), arguments: [team],
            environment: ["TASKBASE_URL": serve.baseURL, "TASKBASE_TOKEN": token, "PATH": environment["PATH"] ?? ""])
        try await waitUntil("board-watch to print the board", limit: .seconds(30)) {
            watch.standardOutputSoFar.contains("Write the docs")
        }
        #expect(watch.standardOutputSoFar.contains("== \(team): 1 tasks (open 1 · in_progress 0 · done 0)"))
        #expect(watch.standardOutputSoFar.contains("Docs (1)"))
        _ = try await taskctl(["task", "add", "--team", team, "Fix the build", "--as", writer], environment)
        try await waitUntil("board-watch to print the new task", limit: .seconds(30)) {
            watch.standardOutputSoFar.contains("Fix the build")
        }
        #expect(watch.standardOutputSoFar.contains("== \(team): 2 tasks (open 2 · in_progress 0 · done 0)"))
        #expect(watch.standardOutputSoFar.contains("Uncategorized (1)"))

        watch.send(SIGINT)
        let run = try await watch.finish(within: .seconds(10))
        #expect(run.exitCode == 0 && !run.killedBySignal, "\(run)")
        #expect(!run.standardOutput.contains(token) && !run.standardError.contains(token))
        #expect(try await serve.stop() == 0)
    }
}
