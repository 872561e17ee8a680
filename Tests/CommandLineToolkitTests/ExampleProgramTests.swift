import CommandLineToolkit
import Foundation
import TaskbaseTestSupport
import Testing

@Suite("The example program as a process", .serialized)
struct ExampleProgramTests {
    @Test("data goes to stdout and the exit code is 0")
    func success() async throws {
        let result = try await ExampleProcess.run(["--json", "echo", "a", "b"])
        #expect(result.exitCode == 0)
        #expect(result.standardError.isEmpty)
        let decoded = try JSONDecoder().decode([String: [String]].self, from: Data(result.standardOutput.utf8))
        #expect(decoded == ["words": ["a", "b"]])
    }

    @Test("a thrown error's exit code becomes the process's, with one line on stderr", arguments: [1, 3, 4, 5, 6])
    func errorCodes(code: Int32) async throws {
        let result = try await ExampleProcess.run(["fail", "--code", String(code)])
        #expect(result.exitCode == code)
        #expect(result.standardOutput.isEmpty)
        #expect(result.standardError == "toolkit-example: error: failing on purpose with code \(code)\n")
    }

    @Test("a usage error exits 2 with the usage on stderr and nothing on stdout")
    func usage() async throws {
        let result = try await ExampleProcess.run(["echo"])
        #expect(result.exitCode == 2)
        #expect(result.standardOutput.isEmpty)
        #expect(
            result.standardError == """
                toolkit-example: error: missing required argument WORD
                Usage: toolkit-example echo [<options>] WORD ...
                See 'toolkit-example echo --help'.

                """)
    }

    @Test("help and version go to stdout and exit 0")
    func helpAndVersion() async throws {
        let help = try await ExampleProcess.run(["help", "count"])
        #expect(help.exitCode == 0)
        #expect(help.standardOutput.contains("--no-progress"))
        let version = try await ExampleProcess.run(["--version"])
        #expect(version.standardOutput == "toolkit-example 1.0\n")
    }

    @Test("no progress is drawn when stderr is not a terminal")
    func progressHiddenInPipes() async throws {
        let result = try await ExampleProcess.run(["count", "--to", "50000"])
        #expect(result.exitCode == 0)
        #expect(result.standardError.isEmpty)
        #expect(result.standardOutput == "counted 50000\n")
    }

    @Test("Ctrl-C cancels the command: a command that handles it exits 0, one that does not exits 130")
    func interrupt() async throws {
        for (arguments, expected, said) in [(["wait"], Int32(0), "waiting\nstopped\n"), (["wait", "--rude"], 130, "waiting\n")] {
            let running = try ExampleProcess.start(arguments)
            try await waitUntil("'waiting' from the example") { running.standardOutputSoFar.contains("waiting\n") }
            running.send(SIGINT)
            let result = await running.finish()
            #expect(result.exitCode == expected)
            #expect(result.standardOutput == said)
        }
    }
}
