import CommandLineToolkit
import TaskCore

/// Options, flags and positionals several commands declare, written once so they read and
/// parse the same everywhere.
enum SharedDeclarations {
    /// `--team KEY`, required.
    static let team = Option("team", short: "t", valueName: "KEY", help: "The team's key, e.g. CORE.", isRequired: true)
    /// `--if-version N`: optimistic concurrency for edits.
    static let ifVersion = Option(
        "if-version", valueName: "N",
        help: "Change nothing and exit 5 unless the task is still at version N (task show prints it; --json gives it as version).",
        type: .positiveInteger)
    /// `--csv` on list commands.
    static let csv = Flag("csv", help: "Print CSV with a header row; the column names are the JSON field names.")
    /// The `KEY-N` positional of task commands.
    static let taskKey = Positional("key", valueName: "KEY-N", help: "The task, e.g. CORE-42.")
    /// The `KEY` positional of team commands.
    static let teamKey = Positional("team", valueName: "KEY", help: "The team's key, e.g. CORE.")
    /// The `EMAIL` positional of user and membership commands.
    static let email = Positional("email", valueName: "EMAIL", help: "The user's email address.")
    /// `--priority P`.
    static let priority = Option("priority", valueName: "P", help: "How urgent it is.", type: .choice(of: TaskPriority.self))
    /// `--due DATE`, with the relative forms people type.
    static let due = Option(
        "due", valueName: "DATE",
        help: "Due date: \(DueDateExpression.accepted) (write --due=-1d for a value starting with '-').")
}

extension ParsedValues {
    /// The version `--if-version` states, if given.
    var expectedVersion: Int64? {
        int("if-version").map(Int64.init)
    }
}
