/// taskmigrate's own minimal argument parsing, kept in this one file so that it can give way
/// to the shared CommandLineToolkit module without touching the commands.
///
/// Accepts `command [positionals] [--flag] [--option value | --option=value]` in any order.
struct CommandLineArguments {
    /// The first word that is not an option, e.g. `up`.
    var command: String?
    /// Non-option words after the command.
    var positionals: [String] = []
    /// Options that take a value, by name without dashes.
    var values: [String: String] = [:]
    /// Options without a value that were given, by name without dashes.
    var flags: Set<String> = []

    /// Options every command takes.
    static let globalValueOptions: Set<String> = ["dir", "lock-timeout", "statement-timeout", "lock-retries", "lock-wait"]
    static let globalFlags: Set<String> = ["help", "version"]

    /// Parses `arguments` (without the program name), allowing the given extra options.
    static func parse(_ arguments: [String], valueOptions: Set<String>, flags allowedFlags: Set<String>) throws(UsageError) -> CommandLineArguments {
        let valueOptions = valueOptions.union(globalValueOptions)
        let allowedFlags = allowedFlags.union(globalFlags)
        var parsed = CommandLineArguments()
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" {
                optionsEnded = true
                continue
            }
            if argument == "-h" && !optionsEnded {
                parsed.flags.insert("help")
                continue
            }
            guard argument.hasPrefix("--"), !optionsEnded else {
                if parsed.command == nil { parsed.command = argument } else { parsed.positionals.append(argument) }
                continue
            }
            let body = argument.dropFirst(2)
            let name = String(body.split(separator: "=", maxSplits: 1).first ?? "")
            let inlineValue = body.contains("=") ? String(body.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[1]) : nil
            if allowedFlags.contains(name) {
                guard inlineValue == nil else { throw UsageError("--\(name) takes no value") }
                parsed.flags.insert(name)
            } else if valueOptions.contains(name) {
                if let inlineValue {
                    parsed.values[name] = inlineValue
                } else {
                    guard index < arguments.count else { throw UsageError("--\(name) needs a value") }
                    parsed.values[name] = arguments[index]
                    index += 1
                }
            } else {
                throw UsageError("unknown option --\(name)")
            }
        }
        return parsed
    }

    /// The value of `--name` as a whole number, if given.
    func integer(_ name: String) throws(UsageError) -> Int64? {
        guard let text = values[name] else { return nil }
        guard let number = Int64(text), number >= 0 else { throw UsageError("--\(name) takes a whole number, not \"\(text)\"") }
        return number
    }

    /// The value of `--name` as a duration: a number with `ms`, `s`, `min` or `h` (a bare
    /// number is milliseconds, as in PostgreSQL).
    func duration(_ name: String) throws(UsageError) -> Duration? {
        guard let text = values[name] else { return nil }
        let number = text.prefix { $0.isNumber || $0 == "." }
        let unit = text.dropFirst(number.count).trimmingPrefix(" ")
        let scale: [Substring: Double] = ["": 0.001, "ms": 0.001, "s": 1, "min": 60, "h": 3600]
        guard let value = Double(number), let factor = scale[Substring(unit)] else {
            throw UsageError("--\(name) takes a duration like 500ms, 5s, 2min or 1h, not \"\(text)\"")
        }
        return .milliseconds(Int64((value * factor * 1000).rounded()))
    }

    /// The single positional argument a command needs, named `what` in the message.
    func onlyPositional(_ what: String) throws(UsageError) -> String {
        guard positionals.count == 1 else {
            throw UsageError(positionals.isEmpty ? "missing \(what)" : "expected one \(what), got \(positionals.count) arguments")
        }
        return positionals[0]
    }

    /// Fails when positional arguments were given to a command that takes none.
    func requireNoPositionals() throws(UsageError) {
        if let first = positionals.first { throw UsageError("unexpected argument \"\(first)\"") }
    }
}

/// A command line that does not fit the command: exit 2.
struct UsageError: Error {
    /// What is wrong.
    var message: String

    init(_ message: String) {
        self.message = message
    }
}
