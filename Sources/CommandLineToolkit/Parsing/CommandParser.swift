/// Turns command-line words into a `ParseOutcome` by following a `Command` tree's declarations.
///
/// Options of a command are accepted anywhere after the word that selected it, including after
/// its subcommands' words; `--` ends options; `--help`, `-h` and `help SUBCOMMAND` ask for help.
public struct CommandParser: Sendable {
    /// The program's command tree.
    public let root: Command
    /// Where options declared with an environment variable look when absent from the command line.
    public let environment: [String: String]

    /// A parser for `root`; pass the process environment to honour options' environment variables.
    public init(root: Command, environment: [String: String] = [:]) {
        self.root = root
        self.environment = environment
    }

    /// Parses `arguments` (without the program name).
    public func parse(_ arguments: [String]) throws(UsageError) -> ParseOutcome {
        var session = ParseSession(root: root, arguments: arguments)
        session.scan()
        if let topic = session.helpTopic {
            guard let chain = session.path.last?.resolve(topic) else {
                throw UsageError("no help for unknown subcommand '\(topic.joined(separator: " "))'", commandPath: session.pathNames)
            }
            return .help(session.path + chain.dropFirst())
        }
        if session.wantsHelp { return .help(session.path) }
        if session.wantsVersion, let version = root.version { return .version(version) }
        if let error = session.firstError { throw error }
        return try session.finish(environment: environment)
    }

    /// What can be read of `arguments` even when `parse` refuses them, for a program that
    /// reports a refused command line in its own words (`Command.usageFailureDocument`): the
    /// options, flags and positionals the parser understood, valid environment values and
    /// defaults, for the command the words selected. A value the parser refused is absent, and
    /// a word that followed an option lacking its value (`--team --json`) counts as no flag:
    /// it may have been meant as that value.
    public func readableValues(_ arguments: [String]) -> ParsedValues {
        var session = ParseSession(root: root, arguments: arguments)
        session.scan()
        _ = session.assignPositionals(of: session.current)
        let fromEnvironment = session.fillOptions(environment: environment).fromEnvironment
        return session.parsedValues(fromEnvironment: fromEnvironment)
    }
}

/// The mutable state of one parse.
private struct ParseSession {
    let root: Command
    let arguments: [String]
    var path: [Command]
    var index = 0
    var optionsEnded = false
    var values: [String: [String]] = [:]
    var flagCounts: [String: Int] = [:]
    var positionalWords: [String] = []
    var helpTopic: [String]?
    var wantsHelp = false
    var wantsVersion = false
    var firstError: UsageError?
    /// The position of the word after an option that lacked its value (`--team --json`): if it
    /// is a flag, it is not counted, since it may have been meant as the value. Only a refused
    /// command line has one, so it matters only to `readableValues`.
    var doubtfulWord: Int?

    init(root: Command, arguments: [String]) {
        self.root = root
        self.arguments = arguments
        self.path = [root]
    }

    var pathNames: [String] { path.dropFirst().map(\.name) }
    var current: Command { path[path.count - 1] }
    var activeOptions: [Option] { path.reversed().flatMap(\.options) }
    var activeFlags: [Flag] { path.reversed().flatMap(\.flags) }

    mutating func fail(_ message: String) {
        if firstError == nil { firstError = UsageError(message, commandPath: pathNames) }
    }

    mutating func scan() {
        while index < arguments.count {
            let word = arguments[index]
            index += 1
            if helpTopic != nil {
                if !word.hasPrefix("-") { helpTopic?.append(word) }
            } else if !optionsEnded && word == "--" {
                optionsEnded = true
            } else if !optionsEnded && word.hasPrefix("--") {
                readLong(String(word.dropFirst(2)))
            } else if !optionsEnded && word.hasPrefix("-") && word.count > 1 && !Self.isNegativeNumber(word) {
                readShorts(Array(word.dropFirst()))
            } else {
                readWord(word)
            }
        }
    }

    /// `-3` or `-0.5`: a value, not an option.
    static func isNegativeNumber(_ word: String) -> Bool {
        word.hasPrefix("-") && Double(word) != nil && word.dropFirst().first.map { $0.isASCII && ($0.isNumber || $0 == ".") } == true
    }

    mutating func readWord(_ word: String) {
        guard !current.subcommands.isEmpty else {
            positionalWords.append(word)
            return
        }
        if let subcommand = current.subcommands.first(where: { $0.name == word }) {
            path.append(subcommand)
        } else if word == "help" {
            helpTopic = []
        } else {
            let names = current.subcommands.map(\.name)
            let hint = ClosestName.suggestion(for: word, among: names).map { "; did you mean '\($0)'?" } ?? ""
            fail("unknown subcommand '\(word)'\(hint)")
        }
    }

    mutating func readLong(_ body: String) {
        let parts = body.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        let name = String(parts[0])
        let inline = parts.count > 1 ? String(parts[1]) : nil
        if name == "help" || (name == "version" && root.version != nil) {
            if inline != nil {
                fail("flag '--\(name)' does not take a value")
            } else if name == "help" {
                wantsHelp = true
            } else {
                wantsVersion = true
            }
        } else if let option = activeOptions.first(where: { $0.name == name }) {
            readValue(of: option, inline: inline)
        } else if let flag = activeFlags.first(where: { $0.name == name }) {
            if inline != nil {
                fail("flag '--\(name)' does not take a value")
            } else {
                count(flag)
            }
        } else {
            let names = activeOptions.map(\.name) + activeFlags.map(\.name) + ["help"]
            let hint = ClosestName.suggestion(for: name, among: names).map { "; did you mean '--\($0)'?" } ?? ""
            fail("unknown option '--\(name)'\(hint)")
        }
    }

    mutating func readShorts(_ letters: [Character]) {
        for (offset, letter) in letters.enumerated() {
            if let option = activeOptions.first(where: { $0.short == letter }) {
                let rest = String(letters[(offset + 1)...])
                readValue(of: option, inline: rest.isEmpty ? nil : rest, spelling: "-\(letter)")
                return
            } else if let flag = activeFlags.first(where: { $0.short == letter }) {
                count(flag)
            } else if letter == "h" {
                wantsHelp = true
            } else {
                fail("unknown option '-\(letter)'")
                return
            }
        }
    }

    /// Counts `flag`, given by the word just read, unless that word is doubtful.
    mutating func count(_ flag: Flag) {
        guard doubtfulWord != index - 1 else { return }
        flagCounts[flag.name, default: 0] += 1
    }

    mutating func readValue(of option: Option, inline: String?, spelling: String? = nil) {
        let shown = spelling ?? "--\(option.name)"
        var value = inline
        if value == nil, index < arguments.count {
            let next = arguments[index]
            if next == "-" || !next.hasPrefix("-") || Self.isNegativeNumber(next) {
                value = next
                index += 1
            }
        }
        guard let value else {
            fail("option '\(shown)' needs a value \(option.valueName) (write --\(option.name)=VALUE for a value starting with '-')")
            if index < arguments.count { doubtfulWord = index }
            return
        }
        if let problem = option.type.problem(with: value) {
            fail("invalid value '\(value)' for '\(shown)': \(problem)")
        } else if values[option.name] != nil && !option.isRepeatable {
            fail("option '--\(option.name)' was given more than once")
        } else {
            values[option.name, default: []].append(value)
        }
    }

    mutating func finish(environment: [String: String]) throws(UsageError) -> ParseOutcome {
        let command = current
        guard command.action != nil else {
            let names = command.subcommands.map(\.name).joined(separator: ", ")
            throw UsageError("missing subcommand (one of: \(names))", commandPath: pathNames, showsFullHelp: true)
        }
        if let problem = assignPositionals(of: command) { throw problem }
        let options = fillOptions(environment: environment)
        if let problem = options.problem { throw problem }
        return .run(command, parsedValues(fromEnvironment: options.fromEnvironment))
    }

    /// The values read, for the command selected.
    func parsedValues(fromEnvironment: [String: String]) -> ParsedValues {
        let declared = path.flatMap { $0.options.map(\.name) + $0.flags.map(\.name) } + current.positionals.map(\.name)
        return ParsedValues(
            commandPath: pathNames, values: values, flagCounts: flagCounts, declaredNames: Set(declared), environmentVariables: fromEnvironment)
    }

    /// Gives each option the command line left without a value its environment variable's value
    /// or its default; returns the options that took their variable's value, and the first
    /// problem (a bad value in a variable, a missing required option), whose option stays empty.
    mutating func fillOptions(environment: [String: String]) -> (fromEnvironment: [String: String], problem: UsageError?) {
        var fromEnvironment: [String: String] = [:]
        var problem: UsageError?
        for option in path.flatMap(\.options) where values[option.name] == nil {
            if let variable = option.environmentVariable, let value = environment[variable], !value.isEmpty {
                if let reason = option.type.problem(with: value) {
                    problem =
                        problem ?? UsageError("invalid value '\(value)' in \(variable) for '--\(option.name)': \(reason)", commandPath: pathNames)
                    continue
                }
                values[option.name] = [value]
                fromEnvironment[option.name] = variable
            } else if let value = option.defaultValue {
                values[option.name] = [value]
            } else if option.isRequired {
                let alternative = option.environmentVariable.map { " (or set \($0))" } ?? ""
                problem =
                    problem ?? UsageError("missing required option '--\(option.name) \(option.valueName)'\(alternative)", commandPath: pathNames)
            }
        }
        return (fromEnvironment, problem)
    }

    /// Gives `command`'s positionals their words; returns the first problem (a missing word, a
    /// word of the wrong type, one word too many), the valid words assigned all the same.
    mutating func assignPositionals(of command: Command) -> UsageError? {
        var problem: UsageError?
        func note(_ message: String) {
            if problem == nil { problem = UsageError(message, commandPath: pathNames) }
        }
        var remaining = positionalWords[...]
        for positional in command.positionals {
            let taken: [String]
            switch positional.arity {
            case .required, .optional:
                taken = remaining.first.map { [$0] } ?? []
            case .zeroOrMore, .oneOrMore:
                taken = Array(remaining)
            }
            remaining = remaining.dropFirst(taken.count)
            if taken.isEmpty && (positional.arity == .required || positional.arity == .oneOrMore) {
                note("missing required argument \(positional.valueName)")
            }
            let valid = taken.filter { word in
                guard let reason = positional.type.problem(with: word) else { return true }
                note("invalid value '\(word)' for \(positional.valueName): \(reason)")
                return false
            }
            if !valid.isEmpty { values[positional.name] = valid }
        }
        if let extra = remaining.first {
            note("unexpected argument '\(extra)'")
        }
        return problem
    }
}
