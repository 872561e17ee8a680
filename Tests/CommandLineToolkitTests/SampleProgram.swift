import CommandLineToolkit
import Foundation

/// A small taskctl-like tree used by the parser, help and runner tests.
enum SampleProgram {
    enum Priority: String, CaseIterable {
        case none, low, medium, high, urgent
    }

    static func root(taskAddAction: Command.Action? = nil) -> Command {
        Command(
            "taskctl",
            abstract: "Manage Taskbase users, teams and tasks.",
            version: "taskctl 1.2.3",
            options: [
                Option("as", valueName: "EMAIL", help: "The acting user.", environment: "TASKBASE_ACTOR")
            ],
            flags: [Flag("json", help: "Print one JSON document.")],
            subcommands: [
                Command(
                    "task",
                    abstract: "Create, list and change tasks.",
                    subcommands: [
                        Command(
                            "add",
                            abstract: "Create a task.",
                            discussion: "The task gets the next number of its team.",
                            positionals: [Positional("title", help: "The task's title.")],
                            options: [
                                Option("team", short: "t", valueName: "KEY", help: "The team's key.", isRequired: true),
                                Option("priority", help: "How urgent it is.", type: .choice(of: Priority.self), default: "none"),
                                Option("limit", help: "A number.", type: .integer),
                                Option("label", help: "A label.", isRepeatable: true),
                            ],
                            flags: [Flag("dry-run", short: "n", help: "Show what would happen."), Flag("quiet", short: "q", help: "Say less.")],
                            run: taskAddAction ?? { _ in }
                        ),
                        Command(
                            "show",
                            abstract: "Show one task.",
                            positionals: [Positional("task", valueName: "KEY-N", help: "The task's key.")],
                            run: { _ in }
                        ),
                    ]
                ),
                Command(
                    "import",
                    abstract: "Import files.",
                    positionals: [
                        Positional("format", type: .choice(["csv", "json"]), help: "The format."),
                        Positional("target", arity: .optional, help: "Where to."),
                        Positional("files", valueName: "FILE", arity: .zeroOrMore, help: "Files to read."),
                    ],
                    options: [Option("map", valueName: "COLUMN=HEADER", help: "Map a column.", isRepeatable: true)],
                    run: { _ in }
                ),
            ]
        )
    }

    /// Parses `arguments`, expecting a command to run, and returns its values.
    static func values(_ arguments: [String], environment: [String: String] = [:]) throws -> ParsedValues {
        let outcome = try CommandParser(root: root(), environment: environment).parse(arguments)
        guard case .run(_, let values) = outcome else {
            throw CommandFailure("expected a command to run, got \(outcome)")
        }
        return values
    }

    /// The usage error `arguments` cause, or nil when they parse.
    static func usageError(_ arguments: [String]) -> UsageError? {
        do {
            _ = try CommandParser(root: root()).parse(arguments)
            return nil
        } catch {
            return error
        }
    }
}
