/// Renders usage lines and help pages from the same declarations the parser follows.
public struct HelpFormatter: Sendable {
    /// The command being described, preceded by its ancestors (root first).
    public let chain: [Command]
    /// The width to wrap help text to.
    public let width: Int

    private static let labelColumnLimit = 28

    /// A formatter for the last command of `chain`.
    public init(chain: [Command], width: Int = 80) {
        precondition(!chain.isEmpty, "a help chain starts with the root command")
        self.chain = chain
        self.width = width
    }

    private var command: Command { chain[chain.count - 1] }
    private var invocation: String { chain.map(\.name).joined(separator: " ") }

    /// `Usage: taskctl task add --team KEY [<options>] TITLE`, with no trailing newline.
    public func usageLine() -> String {
        var parts = ["Usage:", invocation]
        let inherited = chain.dropLast().flatMap(\.options)
        for option in (inherited + command.options) where option.isRequired && option.defaultValue == nil {
            parts.append("--\(option.name) \(option.valueName)" + (option.isRepeatable ? " ..." : ""))
        }
        let hasOptional = chain.contains { link in
            !link.flags.isEmpty || link.options.contains { !$0.isRequired || $0.defaultValue != nil }
        }
        if hasOptional { parts.append("[<options>]") }
        if !command.subcommands.isEmpty { parts.append("<subcommand>") }
        for positional in command.positionals {
            switch positional.arity {
            case .required: parts.append(positional.valueName)
            case .optional: parts.append("[\(positional.valueName)]")
            case .zeroOrMore: parts.append("[\(positional.valueName) ...]")
            case .oneOrMore: parts.append("\(positional.valueName) ...")
            }
        }
        return parts.joined(separator: " ")
    }

    /// The hint printed under a usage error, pointing at the full help.
    public func helpHint() -> String {
        "See '\(invocation) --help'."
    }

    /// The whole help page, ending with a newline.
    public func fullHelp() -> String {
        var out: [String] = TextWrapping.wrap(command.abstract, width: width)
        out += ["", usageLine()]
        if let discussion = command.discussion {
            out += [""] + TextWrapping.wrap(discussion, width: width)
        }
        var own = command.options.map { (label(for: $0), describe($0)) } + command.flags.map { (label(for: $0), $0.help) }
        if chain.count == 1, command.version != nil {
            own.append(("    --version", "Print the version and exit."))
        }
        own.append(("-h, --help", "Show this help and exit."))
        let inherited = chain.dropLast().flatMap { link in
            link.options.map { (label(for: $0), describe($0)) } + link.flags.map { (label(for: $0), $0.help) }
        }
        let sections: [(title: String, entries: [(label: String, text: String)])] = [
            ("Arguments:", command.positionals.map { ($0.valueName, describe($0)) }),
            ("Options:", own),
            ("Global options:", inherited),
            ("Subcommands:", command.subcommands.map { ($0.name, $0.abstract) }),
        ]
        let labelWidth = min(Self.labelColumnLimit, sections.flatMap(\.entries).map { DisplayWidth.measure($0.label) }.max() ?? 0)
        for section in sections where !section.entries.isEmpty {
            out += ["", section.title] + section.entries.flatMap { entry(label: $0.label, text: $0.text, labelWidth: labelWidth) }
        }
        if !command.subcommands.isEmpty {
            out += ["", "See '\(invocation) help <subcommand>' for help on a subcommand."]
        }
        return out.joined(separator: "\n") + "\n"
    }

    private func label(for option: Option) -> String {
        shortPrefix(option.short) + "--\(option.name) \(option.valueName)"
    }

    private func label(for flag: Flag) -> String {
        shortPrefix(flag.short) + "--\(flag.name)"
    }

    private func shortPrefix(_ short: Character?) -> String {
        short.map { "-\($0), " } ?? "    "
    }

    private func describe(_ positional: Positional) -> String {
        var notes: [String] = []
        if positional.arity == .optional || positional.arity == .zeroOrMore { notes.append("optional") }
        if case .choice(let allowed) = positional.type { notes.append("values: " + allowed.joined(separator: ", ")) }
        return notes.isEmpty ? positional.help : "\(positional.help) (\(notes.joined(separator: "; ")))"
    }

    private func describe(_ option: Option) -> String {
        var notes: [String] = []
        if option.isRequired && option.defaultValue == nil { notes.append("required") }
        if case .choice(let allowed) = option.type { notes.append("values: " + allowed.joined(separator: ", ")) }
        if let value = option.defaultValue { notes.append("default: \(value)") }
        if let variable = option.environmentVariable { notes.append("env: \(variable)") }
        if option.isRepeatable { notes.append("repeatable") }
        return notes.isEmpty ? option.help : "\(option.help) (\(notes.joined(separator: "; ")))"
    }

    private func entry(label: String, text: String, labelWidth: Int) -> [String] {
        let indent = String(repeating: " ", count: labelWidth + 4)
        let wrapped = TextWrapping.wrap(text, width: max(20, width - indent.count))
        let labelLength = DisplayWidth.measure(label)
        if labelLength > labelWidth {
            return ["  " + label] + wrapped.map { indent + $0 }
        }
        let padding = String(repeating: " ", count: labelWidth - labelLength + 2)
        return ["  " + label + padding + (wrapped.first ?? "")] + wrapped.dropFirst().map { indent + $0 }
    }
}
