/// The values a command line gave a command, read by declared name with typed getters.
///
/// Types were checked while parsing, so the getters cannot fail; asking for a name the
/// command never declared is a programming error and stops the program.
public struct ParsedValues: Sendable {
    /// The subcommand words that selected the command, root excluded (e.g. `["task", "add"]`).
    public let commandPath: [String]
    private let values: [String: [String]]
    private let flagCounts: [String: Int]
    private let declaredNames: Set<String>
    private let environmentVariables: [String: String]

    /// Values as the parser collected them; public so tests of a command's action can build them.
    /// `environmentVariables` names, per option, the variable its value came from.
    public init(
        commandPath: [String], values: [String: [String]], flagCounts: [String: Int], declaredNames: Set<String>,
        environmentVariables: [String: String] = [:]
    ) {
        self.commandPath = commandPath
        self.values = values
        self.flagCounts = flagCounts
        self.declaredNames = declaredNames
        self.environmentVariables = environmentVariables
    }

    /// Where option `name`'s value came from, for a message about it: its environment variable
    /// (`TASKBASE_LOCK_TIMEOUT`) when that gave it, else the option's name (`lock-timeout`), as
    /// `DurationText.parse` and the like take it.
    public func source(of name: String) -> String {
        precondition(declaredNames.contains(name), "'\(name)' is not declared by this command")
        return environmentVariables[name] ?? name
    }

    /// How option `name` is named in a refusal: `--name`, or the environment variable that gave
    /// its value (`TASKBASE_SSE_HEARTBEAT`), which is where the operator must look.
    public func shownName(of name: String) -> String {
        let source = source(of: name)
        return source == name ? "--\(name)" : source
    }

    /// The last value of an option or the word of a positional, or nil when absent and without default.
    public func string(_ name: String) -> String? {
        strings(name).last
    }

    /// The value of a required positional, or of an option that is required or has a default,
    /// which the parser guarantees; asking for one that may be absent stops the program.
    public func requiredString(_ name: String) -> String {
        guard let value = string(name) else {
            preconditionFailure("'\(name)' may be absent: declare it required or give it a default")
        }
        return value
    }

    /// Every value of a repeatable option or variadic positional, in command-line order.
    public func strings(_ name: String) -> [String] {
        precondition(declaredNames.contains(name), "'\(name)' is not declared by this command")
        return values[name] ?? []
    }

    /// The value of an option or positional declared with `type: .integer` or `.positiveInteger`.
    public func int(_ name: String) -> Int? {
        string(name).flatMap { Int($0) }
    }

    /// Whether a flag was given.
    public func flag(_ name: String) -> Bool {
        precondition(declaredNames.contains(name), "'\(name)' is not declared by this command")
        return (flagCounts[name] ?? 0) > 0
    }

    /// The value as an enum, for an option declared with `type: .choice(of: T.self)`.
    public func value<T: RawRepresentable>(_ name: String, as type: T.Type) -> T? where T.RawValue == String {
        string(name).flatMap { T(rawValue: $0) }
    }

    /// Every `KEY=VALUE` value of a repeatable option such as `--map title=Summary`.
    public func keyValuePairs(_ name: String) throws(UsageError) -> [(key: String, value: String)] {
        var pairs: [(key: String, value: String)] = []
        for text in strings(name) {
            guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
                throw UsageError("invalid value '\(text)' for '--\(name)': expected KEY=VALUE")
            }
            pairs.append((String(text[..<equals]), String(text[text.index(after: equals)...])))
        }
        return pairs
    }
}
