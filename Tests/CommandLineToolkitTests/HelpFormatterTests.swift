import CommandLineToolkit
import Testing

@Suite("Generated help")
struct HelpFormatterTests {
    private func help(_ path: [String]) throws -> String {
        let chain = try #require(SampleProgram.root().resolve(path))
        return HelpFormatter(chain: chain).fullHelp()
    }

    @Test("the usage line shows required options, optional ones as [<options>], and positionals")
    func usageLine() throws {
        let chain = try #require(SampleProgram.root().resolve(["task", "add"]))
        #expect(HelpFormatter(chain: chain).usageLine() == "Usage: taskctl task add --team KEY [<options>] TITLE")
        let importChain = try #require(SampleProgram.root().resolve(["import"]))
        #expect(HelpFormatter(chain: importChain).usageLine() == "Usage: taskctl import [<options>] FORMAT [TARGET] [FILE ...]")
        #expect(HelpFormatter(chain: [SampleProgram.root()]).usageLine() == "Usage: taskctl [<options>] <subcommand>")
    }

    @Test("generated help lists every declared option, flag and positional with its notes")
    func listsEverything() throws {
        let text = try help(["task", "add"])
        for expected in [
            "Create a task.", "The task gets the next number of its team.",
            "TITLE", "-t, --team KEY", "(required)", "--priority PRIORITY",
            "(values: none, low, medium, high,", "urgent; default: none)", "--limit LIMIT",
            "--label LABEL", "(repeatable)", "-n, --dry-run", "-q, --quiet", "-h, --help",
            "Global options:", "--as EMAIL", "(env: TASKBASE_ACTOR)", "--json",
        ] {
            #expect(text.contains(expected), "help lacks \(expected)")
        }
        #expect(!text.contains("--version"))
    }

    @Test("help of a grouping command lists its subcommands with their abstracts")
    func subcommands() throws {
        let text = try help([])
        #expect(text.contains("Subcommands:\n  task            Create, list and change tasks.\n  import          Import files."))
        #expect(text.contains("--version"))
        #expect(text.hasSuffix("See 'taskctl help <subcommand>' for help on a subcommand.\n"))
    }

    @Test("help columns line up and long text wraps within the width")
    func layout() throws {
        let text = try help(["task", "add"])
        let lines = text.split(separator: "\n")
        #expect(lines.allSatisfy { DisplayWidth.measure(String($0)) <= 80 })
        let starts = lines.filter { $0.hasPrefix("  -") || $0.hasPrefix("      --") }.compactMap { line in
            line.prefixMatch(of: /^ +\S.*?\S {2,}/).map { $0.output.count }
        }
        #expect(Set(starts).count == 1, "help text starts at different columns: \(starts)")
    }
}
