import CommandLineToolkit
import Testing

@Suite("Parsing command lines")
struct CommandParserTests {
    @Test("subcommands, options, flags and positionals reach the selected command")
    func happyPath() throws {
        let values = try SampleProgram.values(["--as", "ann@example.com", "task", "add", "--team", "CORE", "--json", "Fix the build"])
        #expect(values.commandPath == ["task", "add"])
        #expect(values.string("as") == "ann@example.com")
        #expect(values.requiredString("team") == "CORE")
        #expect(values.requiredString("title") == "Fix the build")
        #expect(values.flag("json"))
        #expect(!values.flag("dry-run"))
    }

    @Test("the = form, short aliases and glued short values are equivalent")
    func spellings() throws {
        for spelling in [["--team=CORE"], ["-t", "CORE"], ["-tCORE"]] {
            let values = try SampleProgram.values(["task", "add", "T"] + spelling)
            #expect(values.string("team") == "CORE")
        }
        let empty = try SampleProgram.values(["task", "add", "T", "--team="])
        #expect(empty.string("team") == "")
    }

    @Test("combined short flags each count")
    func combinedFlags() throws {
        let values = try SampleProgram.values(["task", "add", "-nq", "-t", "CORE", "T"])
        #expect(values.flag("dry-run") && values.flag("quiet"))
    }

    @Test("a repeatable option keeps every value in order")
    func repeatable() throws {
        let values = try SampleProgram.values(["import", "csv", "--map", "title=Summary", "--map=notes=Description"])
        #expect(values.strings("map") == ["title=Summary", "notes=Description"])
        let pairs = try values.keyValuePairs("map")
        #expect(pairs.map(\.key) == ["title", "notes"])
        #expect(pairs.map(\.value) == ["Summary", "Description"])
    }

    @Test("a KEY=VALUE option without = is a usage error")
    func badPair() throws {
        let values = try SampleProgram.values(["import", "csv", "--map", "title"])
        #expect(throws: UsageError.self) { try values.keyValuePairs("map") }
    }

    @Test("a non-repeatable option given twice is refused")
    func twice() {
        let error = SampleProgram.usageError(["task", "add", "T", "--team", "A", "--team", "B"])
        #expect(error?.message == "option '--team' was given more than once")
    }

    @Test("-- ends options so a title may start with a dash")
    func doubleDash() throws {
        let values = try SampleProgram.values(["task", "add", "--team", "CORE", "--", "--not-an-option"])
        #expect(values.string("title") == "--not-an-option")
    }

    @Test("a value starting with a dash needs the = form, but negative numbers and - are values")
    func dashValues() throws {
        #expect(SampleProgram.usageError(["task", "add", "T", "--team", "-x"])?.message.hasPrefix("option '--team' needs a value") == true)
        let values = try SampleProgram.values(["task", "add", "T", "--team=-x", "--limit", "-3"])
        #expect(values.string("team") == "-x")
        #expect(values.int("limit") == -3)
        #expect(try SampleProgram.values(["task", "add", "-", "--team", "-"]).string("title") == "-")
        #expect(try SampleProgram.values(["task", "add", "-t", "C", "-0.5"]).string("title") == "-0.5")
        #expect(SampleProgram.usageError(["task", "add", "-t", "C", "T", "-nan"])?.message == "unknown option '-a'")
    }

    @Test("options of a parent command are accepted after the subcommand")
    func inheritedOptions() throws {
        let values = try SampleProgram.values(["task", "show", "CORE-1", "--as", "bob@example.com", "--json"])
        #expect(values.string("as") == "bob@example.com")
        #expect(values.flag("json"))
        #expect(values.string("task") == "CORE-1")
    }

    @Test("an option falls back to its environment variable, then to its default")
    func environmentAndDefault() throws {
        let values = try SampleProgram.values(["task", "add", "-t", "CORE", "T"], environment: ["TASKBASE_ACTOR": "env@example.com"])
        #expect(values.string("as") == "env@example.com")
        #expect(values.value("priority", as: SampleProgram.Priority.self) == SampleProgram.Priority.none)
        let explicit = try SampleProgram.values(
            ["task", "add", "-t", "CORE", "T", "--as", "cli@example.com"], environment: ["TASKBASE_ACTOR": "env@example.com"])
        #expect(explicit.string("as") == "cli@example.com")
    }

    @Test("a value taken from an environment variable is said to come from it, so a message about it names the variable")
    func environmentSource() throws {
        let values = try SampleProgram.values(["task", "add", "-t", "CORE", "T"], environment: ["TASKBASE_ACTOR": "env@example.com"])
        #expect(values.source(of: "as") == "TASKBASE_ACTOR")
        #expect(values.source(of: "team") == "team")
        let explicit = try SampleProgram.values(
            ["task", "add", "-t", "CORE", "T", "--as", "cli@example.com"], environment: ["TASKBASE_ACTOR": "env@example.com"])
        #expect(explicit.source(of: "as") == "as")
        let error = try #require(throws: UsageError.self) { try DurationText.parse("soon", option: values.source(of: "as")) }
        #expect(error.message == "invalid value 'soon' in TASKBASE_ACTOR: expected a duration like 500ms, 5s, 2min or 1h (0 or none for no limit)")
    }

    @Test("optional and variadic positionals take what is there")
    func positionalArity() throws {
        let none = try SampleProgram.values(["import", "csv"])
        #expect(none.string("target") == nil)
        #expect(none.strings("files").isEmpty)
        let many = try SampleProgram.values(["import", "json", "db", "a.csv", "b.csv"])
        #expect(many.string("target") == "db")
        #expect(many.strings("files") == ["a.csv", "b.csv"])
    }

    @Test("an unknown option suggests the closest one")
    func unknownOption() {
        let error = SampleProgram.usageError(["task", "add", "T", "--tem", "CORE"])
        #expect(error?.message == "unknown option '--tem'; did you mean '--team'?")
        #expect(error?.commandPath == ["task", "add"])
        #expect(SampleProgram.usageError(["task", "add", "--zzzzzz"])?.message == "unknown option '--zzzzzz'")
        #expect(SampleProgram.usageError(["task", "add", "-z"])?.message == "unknown option '-z'")
    }

    @Test("an unknown subcommand suggests the closest one")
    func unknownSubcommand() {
        #expect(SampleProgram.usageError(["task", "ad"])?.message == "unknown subcommand 'ad'; did you mean 'add'?")
    }

    @Test("an option without its value is a usage error")
    func missingValue() {
        #expect(SampleProgram.usageError(["task", "add", "T", "--team"])?.message.hasPrefix("option '--team' needs a value KEY") == true)
    }

    @Test("a missing required option or argument is named")
    func missingRequired() {
        #expect(SampleProgram.usageError(["task", "add", "T"])?.message == "missing required option '--team KEY'")
        #expect(SampleProgram.usageError(["task", "add", "-t", "CORE"])?.message == "missing required argument TITLE")
    }

    @Test("a bad enum value lists the allowed ones")
    func badChoice() {
        let error = SampleProgram.usageError(["task", "add", "T", "-t", "CORE", "--priority", "asap"])
        #expect(error?.message == "invalid value 'asap' for '--priority': expected one of: none, low, medium, high, urgent")
        #expect(SampleProgram.usageError(["import", "xml"])?.message == "invalid value 'xml' for FORMAT: expected one of: csv, json")
    }

    @Test("a non-number for an integer option is refused")
    func badInteger() {
        #expect(
            SampleProgram.usageError(["task", "add", "T", "-t", "C", "--limit", "ten"])?.message
                == "invalid value 'ten' for '--limit': expected a whole number")
    }

    @Test("an unexpected extra argument is refused")
    func extraArgument() {
        #expect(SampleProgram.usageError(["task", "show", "CORE-1", "CORE-2"])?.message == "unexpected argument 'CORE-2'")
    }

    @Test("a flag given a value is refused, --help and --version too, never called unknown")
    func flagWithValue() {
        #expect(SampleProgram.usageError(["task", "show", "X", "--json=yes"])?.message == "flag '--json' does not take a value")
        #expect(SampleProgram.usageError(["--help=task"])?.message == "flag '--help' does not take a value")
        #expect(SampleProgram.usageError(["task", "show", "X", "--version=2"])?.message == "flag '--version' does not take a value")
    }

    @Test("a grouping command without its subcommand asks for the full help")
    func missingSubcommand() {
        let error = SampleProgram.usageError(["task"])
        #expect(error?.message == "missing subcommand (one of: add, show)")
        #expect(error?.showsFullHelp == true)
    }

    @Test("--help, -h and help SUBCOMMAND select the help of the right command, even with other errors")
    func helpRequests() throws {
        let parser = CommandParser(root: SampleProgram.root())
        for arguments in [
            ["task", "add", "--help"], ["task", "add", "-h"], ["help", "task", "add"], ["task", "help", "add"], ["task", "add", "--bogus", "-h"],
        ] {
            guard case .help(let chain) = try parser.parse(arguments) else {
                Issue.record("no help for \(arguments)")
                continue
            }
            #expect(chain.map(\.name) == ["taskctl", "task", "add"])
        }
        #expect(throws: UsageError.self) { try parser.parse(["help", "nope"]) }
        guard case .help(let rootChain) = try parser.parse(["help"]) else {
            Issue.record("no help for the root")
            return
        }
        #expect(rootChain.map(\.name) == ["taskctl"])
    }

    @Test("--version prints the root's version")
    func version() throws {
        guard case .version(let text) = try CommandParser(root: SampleProgram.root()).parse(["--version"]) else {
            Issue.record("no version")
            return
        }
        #expect(text == "taskctl 1.2.3")
    }

    @Test("the sample declaration has no problems, and mistakes are found")
    func declarationProblems() {
        #expect(SampleProgram.root().declarationProblems().isEmpty)
        let broken = Command(
            "broken",
            abstract: "Broken.",
            positionals: [Positional("files", arity: .zeroOrMore, help: "F."), Positional("last", help: "L.")],
            options: [Option("name", short: "h", help: "N.")],
            flags: [Flag("name", help: "Again.")],
            run: { _ in }
        )
        #expect(broken.declarationProblems().count == 3)
    }

    @Test("a refused command line is still read as far as it goes: its words, defaults and variables, not the refused values")
    func readableValuesOfARefusedLine() {
        let parser = CommandParser(root: SampleProgram.root(), environment: ["TASKBASE_ACTOR": "ann@example.com"])
        let missingTeam = ["task", "add", "--json", "--priority", "someday", "--limit", "3", "Fix it", "extra"]
        #expect(SampleProgram.usageError(missingTeam) != nil)
        let values = parser.readableValues(missingTeam)
        #expect(values.commandPath == ["task", "add"])
        #expect(values.flag("json"))
        #expect(values.string("title") == "Fix it")
        #expect(values.int("limit") == 3)
        #expect(values.string("as") == "ann@example.com")
        #expect(values.source(of: "as") == "TASKBASE_ACTOR")
        // The refused value is absent, so the default fills in; the missing option stays absent.
        #expect(values.string("priority") == "none")
        #expect(values.string("team") == nil)
        let unknown = parser.readableValues(["--bogus", "import", "json", "--json", "a.json", "b.json"])
        #expect(unknown.commandPath == ["import"])
        #expect(unknown.flag("json"))
        #expect(unknown.string("format") == "json")
        #expect(unknown.strings("files") == ["b.json"])
    }

    @Test("a flag right after an option that lacks its value is not counted: it may have been meant as the value")
    func flagAfterAValuelessOption() {
        let parser = CommandParser(root: SampleProgram.root())
        for arguments in [
            ["task", "add", "--team", "--json", "T"], ["task", "add", "-t", "--json", "T"], ["--as", "--json", "task", "show", "X-1"],
        ] {
            #expect(SampleProgram.usageError(arguments) != nil, "\(arguments)")
            #expect(!parser.readableValues(arguments).flag("json"), "\(arguments)")
        }
        #expect(parser.readableValues(["task", "add", "--team", "--json", "-q", "T"]).flag("quiet"))
        #expect(parser.readableValues(["task", "add", "--json", "--team"]).flag("json"))
        #expect(!parser.readableValues(["task", "add", "--team", "-n", "T"]).flag("dry-run"))
        #expect(!parser.readableValues(["task", "add", "T", "--", "--json"]).flag("json"))
    }
}

@Suite("Durations on the command line")
struct DurationTextTests {
    @Test("none and 0 both read as no limit, except where zero is not a limit")
    func noneForNoLimit() throws {
        #expect(try DurationText.parse("none", option: "statement-timeout") == .zero)
        #expect(try DurationText.parse("0", option: "statement-timeout") == .zero)
        #expect(throws: UsageError.self) { try DurationText.parse("none", option: "lock-wait", isLimit: false) }
    }

    @Test("a duration longer than PostgreSQL takes for a timeout is a usage error, however long, and the longest it takes is read")
    func longestDuration() throws {
        #expect(try DurationText.parse("2147483647ms", option: "lock-timeout") == .milliseconds(2_147_483_647))
        for text in ["2147483648", "1000h", "99999999999999999999h"] {
            let error = try #require(throws: UsageError.self) { try DurationText.parse(text, option: "lock-timeout") }
            #expect(
                error.message
                    == "invalid value '\(text)' for '--lock-timeout': at most 2147483647ms (about 24 days), the longest PostgreSQL takes for a timeout; 0 or none for no limit"
            )
        }
        #expect(throws: UsageError.self) { try DurationText.parse("99999999999999999999h", option: "lock-wait", isLimit: false) }
    }
}
