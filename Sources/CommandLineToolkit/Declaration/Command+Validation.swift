extension Command {
    /// Mistakes in the declaration of this command tree (duplicate names, a positional after a
    /// variadic one, ...), one line each; empty when the tree is sound. Meant for a unit test.
    public func declarationProblems() -> [String] {
        problems(inheritedNames: [], inheritedShorts: [], path: name)
    }

    private func problems(inheritedNames: Set<String>, inheritedShorts: Set<Character>, path: String) -> [String] {
        var found: [String] = []
        var names = inheritedNames
        var shorts = inheritedShorts
        let declared = options.map { ($0.name, $0.short) } + flags.map { ($0.name, $0.short) }
        for (name, short) in declared {
            if name == "help" || name == "version" || !names.insert(name).inserted {
                found.append("\(path): option name '--\(name)' is reserved or used twice")
            }
            if let short, short == "h" || !shorts.insert(short).inserted {
                found.append("\(path): short name '-\(short)' is reserved or used twice")
            }
        }
        for positional in positionals where !names.insert(positional.name).inserted {
            found.append("\(path): positional '\(positional.name)' has the name of another parameter")
        }
        let ranks = positionals.map { positional -> Int in
            switch positional.arity {
            case .required: 0
            case .optional: 1
            case .zeroOrMore, .oneOrMore: 2
            }
        }
        if ranks != ranks.sorted() || ranks.filter({ $0 == 2 }).count > 1 {
            found.append("\(path): positionals must be required, then optional, then at most one variadic")
        }
        if !subcommands.isEmpty && !positionals.isEmpty {
            found.append("\(path): a command with subcommands cannot take positionals")
        }
        if subcommands.isEmpty && action == nil {
            found.append("\(path): a command without subcommands needs a run action")
        }
        var subcommandNames: Set<String> = ["help"]
        for subcommand in subcommands {
            if !subcommandNames.insert(subcommand.name).inserted {
                found.append("\(path): subcommand '\(subcommand.name)' is reserved or declared twice")
            }
            found += subcommand.problems(inheritedNames: names, inheritedShorts: shorts, path: "\(path) \(subcommand.name)")
        }
        return found
    }
}
