import CommandLineToolkit
import TaskbaseCommandLine

/// `taskctl`: Taskbase from a terminal and from scripts. Parsing and printing only; every
/// decision is `TaskService`'s.
@main
enum Taskctl {
    /// The program's version, printed by `--version`.
    static let version = "taskctl 0.1.0"

    /// The whole command tree; help is generated from it.
    static let root = Command(
        "taskctl", abstract: "Work with Taskbase: users, teams, memberships, tasks, live changes, export.",
        discussion: """
            Connection: DATABASE_URL (postgres:// URI or key=value), else the PG* variables; a .env \
            file in the working directory is used only when the environment sets neither (stderr says so). \
            Acting user: --as EMAIL, else TASKBASE_ACTOR. \
            Output: tables for people; --json prints one JSON document (field names in docs/taskctl.md); \
            lists also take --csv. Errors: one line on stderr. \
            Exit codes: 0 ok, 1 failed or not found, 2 usage, 3 cannot connect or bad configuration, \
            4 permission denied, 5 conflict (stale --if-version, name already taken, lock timeout), \
            6 input rejected, 130/143/129 stopped by Ctrl-C/SIGTERM/SIGHUP (the running statement is \
            cancelled and rolled back). Every statement runs with --lock-timeout and --statement-timeout.
            """,
        version: version,
        options: [Option("as", valueName: "EMAIL", help: "The acting user.", environment: "TASKBASE_ACTOR")]
            + SessionLimitOptions.options(lockTimeout: .seconds(10), statementTimeout: .seconds(60)),
        flags: [Flag("json", help: "Print one JSON document.")],
        subcommands: [
            UserCommands.command, TokenCommands.command, TeamCommands.command, TaskCommands.command, StreamCommands.watch, StreamCommands.export,
        ])

    /// Runs the command line; Ctrl-C cancels the running command.
    static func main() async {
        await CommandRunner.main { root }
    }
}
