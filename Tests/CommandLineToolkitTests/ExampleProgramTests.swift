import CommandLineToolkit
import Foundation
import Testing

@Suite("The example program as a process", .serialized)
struct ExampleProgramTests {
    @Test("data goes to stdout and the exit code is 0")
    func success() throws {
        let result = try ExampleProcess.run(["--json", "echo", "a", "b"])
        #expect(result.exitCode == 0)
        #expect(result.standardError.isEmpty)
        let decoded = try JSONDecoder().decode([String: [String]].self, from: Data(result.standardOutput.utf8))
        #expect(decoded == ["words": ["a", "b"]])
    }

    @Test("a thrown error's exit code becomes the process's, with one line on stderr", arguments: [1, 3, 4, 5, 6])
    func errorCodes(code: Int32) throws {
        let result = try ExampleProcess.run(["fail", "--code", String(code)])
        #expect(result.exitCode == code)
        #expect(result.standardOutput.isEmpty)
        #expect(result.standardError == "toolkit-example: error: failing on purpose with code \(code)\n")
    }

    @Test("a usage error exits 2 with the usage on stderr and nothing on stdout")
    func usage() throws {
        let result = try ExampleProcess.run(["echo"])
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
    func helpAndVersion() throws {
        let help = try ExampleProcess.run(["help", "count"])
        #expect(help.exitCode == 0)
        #expect(help.standardOutput.contains("--no-progress"))
        let version = try ExampleProcess.run(["--version"])
        #expect(version.standardOutput == "toolkit-example 1.0\n")
    }

    @Test("no progress is drawn when stderr is not a terminal")
    func progressHiddenInPipes() throws {
        let result = try ExampleProcess.run(["count", "--to", "50000"])
        #expect(result.exitCode == 0)
        #expect(result.standardError.isEmpty)
        #expect(result.standardOutput == "counted 50000\n")
    }

    @Test("Ctrl-C cancels the command: a command that handles it exits 0, one that does not exits 130")
    func interrupt() throws {
        for (arguments, expected, said) in [(["wait"], Int32(0), "waiting\nstopped\n"), (["wait", "--rude"], 130, "waiting\n")] {
            let running = try ExampleProcess(arguments)
            let seen = running.waitForLine("waiting")
            running.process.interrupt()
            let result = running.finish(alreadyRead: seen)
            #expect(result.exitCode == expected)
            #expect(result.standardOutput == said)
        }
    }
}
