import CommandLineToolkit
import Foundation
import Testing

@Suite("Running a program")
struct CommandRunnerTests {
    struct Denied: Error, ExitCodeProviding, CustomStringConvertible {
        var exitCode: ExitCode { .permissionDenied }
        var description: String { "ann@example.com may not add tasks to CORE\n(viewer)" }
    }

    private func run(_ arguments: [String], action: Command.Action? = nil) async -> (ExitCode, String, String) {
        let out = OutputCapture(), err = OutputCapture()
        let runner = CommandRunner(
            root: SampleProgram.root(taskAddAction: action), environment: [:], standardOutput: out.writer, standardError: err.writer)
        let code = await runner.run(arguments)
        return (code, out.text, err.text)
    }

    @Test("the selected action runs with its values and success exits 0")
    func success() async {
        let seen = OutputCapture()
        let (code, _, err) = await run(["task", "add", "-t", "CORE", "Title"]) { values in
            seen.writer(values.string("title") ?? "")
        }
        #expect(code == .success)
        #expect(seen.text == "Title")
        #expect(err.isEmpty)
    }

    @Test("a usage error prints one error line, the usage line and a hint, and exits 2")
    func usageError() async {
        let (code, out, err) = await run(["task", "add", "--tem", "CORE"])
        #expect(code == .usage)
        #expect(out.isEmpty)
        #expect(
            err == """
                taskctl: error: unknown option '--tem'; did you mean '--team'?
                Usage: taskctl task add --team KEY [<options>] TITLE
                See 'taskctl task add --help'.

                """)
    }

    @Test("a missing subcommand prints the group's full help to stderr")
    func missingSubcommand() async {
        let (code, _, err) = await run(["task"])
        #expect(code == .usage)
        #expect(err.contains("Subcommands:"))
    }

    @Test("help goes to stdout and exits 0; --version prints the version")
    func helpAndVersion() async {
        let (code, out, _) = await run(["task", "add", "--help"])
        #expect(code == .success)
        #expect(out.hasPrefix("Create a task.\n\nUsage: taskctl task add"))
        let (versionCode, versionOut, _) = await run(["--version"])
        #expect(versionCode == .success)
        #expect(versionOut == "taskctl 1.2.3\n")
    }

    @Test("an error's own exit code is used and its message printed on one line")
    func mappedError() async {
        let (code, _, err) = await run(["task", "add", "-t", "CORE", "T"]) { _ in throw Denied() }
        #expect(code == .permissionDenied)
        #expect(err == "taskctl: error: ann@example.com may not add tasks to CORE (viewer)\n")
    }

    @Test("an unknown error exits 1; a usage error from the action shows the action's usage")
    func otherErrors() async {
        struct Boom: Error {}
        let (code, _, _) = await run(["task", "add", "-t", "CORE", "T"]) { _ in throw Boom() }
        #expect(code == .failure)
        let (usageCode, _, err) = await run(["task", "add", "-t", "CORE", "T"]) { _ in throw UsageError("bad due date 'someday'") }
        #expect(usageCode == .usage)
        #expect(err.contains("taskctl: error: bad due date 'someday'\nUsage: taskctl task add"))
        let (conflict, _, conflictErr) = await run(["task", "add", "-t", "CORE", "T"]) { _ in
            throw CommandFailure("CORE-7 changed since version 3", exitCode: .conflict)
        }
        #expect(conflict == .conflict)
        #expect(conflictErr == "taskctl: error: CORE-7 changed since version 3\n")
    }

    /// The document of `reportingRoot`'s usage failures.
    struct UsageDocument: Codable, Equatable {
        var message: String
        var actor: String?
        var command: [String]
    }

    /// The sample program, declared to report a refused command line with `--json` as a document.
    private func runReporting(_ arguments: [String]) async -> (ExitCode, String, String) {
        var root = SampleProgram.root()
        root.usageFailureDocument = { error, values in
            values.flag("json") ? UsageDocument(message: error.message, actor: values.string("as"), command: values.commandPath) : nil
        }
        let out = OutputCapture(), err = OutputCapture()
        let code = await CommandRunner(root: root, environment: [:], standardOutput: out.writer, standardError: err.writer).run(arguments)
        return (code, out.text, err.text)
    }

    @Test("a program that reports usage failures as a document prints it on stdout when the line asks, beside the usual stderr")
    func usageFailureDocument() async throws {
        let (code, out, err) = await runReporting(["--json", "--as", "ann@example.com", "task", "add", "--tem", "CORE"])
        #expect(code == .usage)
        let document = try JSONDecoder().decode(UsageDocument.self, from: Data(out.utf8))
        #expect(
            document == UsageDocument(message: "unknown option '--tem'; did you mean '--team'?", actor: "ann@example.com", command: ["task", "add"]))
        #expect(out == (try JSONOutput.encode(document)))
        #expect(err == (await run(["--json", "--as", "ann@example.com", "task", "add", "--tem", "CORE"])).2)
        #expect(err.hasPrefix("taskctl: error: unknown option '--tem'; did you mean '--team'?\nUsage: taskctl task add"))

        let (missingCode, missing, _) = await runReporting(["task", "add", "T", "--json"])
        #expect(missingCode == .usage)
        #expect(try JSONDecoder().decode(UsageDocument.self, from: Data(missing.utf8)).message == "missing required option '--team KEY'")
    }

    @Test("without the flag, with the flag as an option's value, or for help and the version, no document is printed")
    func noUsageFailureDocument() async {
        for arguments in [["task", "add", "--tem", "CORE"], ["task", "add", "--team", "--json", "T"], ["--as", "--json", "task", "show", "X"]] {
            let (code, out, _) = await runReporting(arguments)
            #expect(code == .usage, "\(arguments)")
            #expect(out.isEmpty, "\(arguments)")
        }
        let (helpCode, help, _) = await runReporting(["task", "add", "--json", "--help"])
        #expect(helpCode == .success)
        #expect(help == (await run(["task", "add", "--help"])).1)
        let (versionCode, version, _) = await runReporting(["--json", "--version"])
        #expect(versionCode == .success)
        #expect(version == "taskctl 1.2.3\n")
    }

    @Test("exit codes are those of the command-line contract in docs/design.md")
    func exitCodes() {
        #expect(ExitCode.allCases.map(\.rawValue) == [0, 1, 2, 3, 4, 5, 6, 130, 129, 143])
        #expect(UsageError("x").exitCode == .usage)
    }
}
