import CommandLineToolkit
import Migrations
import PGStore

/// `taskmigrate`: Taskbase's schema migrations. The command tree below drives parsing, help
/// and usage lines; what each command does is `MigrateCommands`'.
@main
enum TaskMigrate {
    static func main() async {
        await CommandRunner.main { root }
    }

    private static let defaults = MigrationSettings()

    static let root = Command(
        "taskmigrate",
        abstract: "Apply, verify and plan Taskbase's schema migrations.",
        discussion: """
            Connection: DATABASE_URL (postgres:// URI or key=value), else the PG* variables; a .env \
            file in the working directory is used only when the environment sets neither (stderr says so). Connect \
            directly to PostgreSQL, not through PgBouncer in transaction mode: the migration lock \
            and the timeouts are session settings.

            Exit codes: 0 ok, 1 failed, 2 usage, 3 cannot connect, 4 permission denied, \
            5 conflict (migration lock busy, lock timeout), 6 input rejected (drift, lint, bad file), \
            130/143/129 stopped by Ctrl-C/SIGTERM/SIGHUP (the running statement is cancelled and a \
            migration's transaction rolled back).
            """,
        version: "taskmigrate \(MigrationTool.version)",
        options: [
            Option(
                "dir", valueName: "PATH", help: "The migrations folder.", default: "migrations", environment: MigrationDirectory.environmentVariable),
            Option(
                "lock-timeout", valueName: "DURATION", help: "lock_timeout for every migration statement: 500ms, 5s, 2min, 1h.",
                default: defaults.lockTimeout.displayText, environment: "TASKBASE_LOCK_TIMEOUT"),
            Option(
                "statement-timeout", valueName: "DURATION", help: "statement_timeout for every migration statement.",
                default: defaults.statementTimeout.displayText, environment: "TASKBASE_STATEMENT_TIMEOUT"),
            Option(
                "lock-retries", valueName: "N", help: "Tries again after a lock timeout, with doubling backoff.", type: .integer,
                default: String(defaults.lockRetries)),
            Option(
                "lock-wait", valueName: "DURATION", help: "How long to wait for another runner's migration lock.",
                default: defaults.migrationLockWait.displayText, environment: "TASKBASE_LOCK_WAIT"),
        ],
        subcommands: [status, up, down, verify, plan, new, lint, baseline]
    )

    static let status = Command(
        "status",
        abstract: "List every migration and its state.",
        discussion: """
            States: applied, pending, changed (edited after it was applied), missing (applied, file \
            gone), out_of_order (not applied, numbered below the newest applied one), ahead (applied, \
            above every file of a folder that holds all the applied ones below it: a newer \
            release's, see up --allow-newer). Reads only; \
            takes no lock. --json prints one document with version, name, file, state, checksum, \
            applied_at and more for each migration, and invalid_indexes: every INVALID index \
            (index, table) a failed or killed concurrent build left, as the table's footer lists them.
            """,
        flags: [Flag("json", help: "Print one JSON document.")],
        run: { values in try await MigrateCommands.status(values) }
    )

    static let up = Command(
        "up",
        abstract: "Apply pending migrations.",
        discussion: """
            Each migration runs in its own transaction together with its history row (unless the \
            file says -- migrate:no-transaction), with lock_timeout and statement_timeout set. A \
            lock timeout is retried with backoff, then reported with the session that blocked it. \
            One runner works at a time (an advisory lock); the others wait, then find the database \
            up to date. Refuses to start on drift or on lint hazards a file does not allow with \
            -- lint:allow RULE (exit 6). Migrations applied above this folder's newest file (a newer \
            release's, after the programs were rolled back) stop it too, unless --allow-newer, which \
            leaves them and exits 0 (the compose file's migrate service passes it).
            """,
        options: [Option("to", valueName: "V", help: "Stop after version V.", type: .integer)],
        flags: [
            Flag("dry-run", help: "List what would run; change nothing."),
            Flag("allow-newer", help: "Accept migrations applied above this folder (a newer release's); leave them."),
        ],
        run: { values in try await MigrateCommands.up(values) }
    )

    static let down = Command(
        "down",
        abstract: "Roll back the newest migration (or all newer than --to).",
        discussion: """
            Runs the -- migrate:down section and removes the history row in the same transaction. \
            With --to V rolls back every applied migration newer than V, newest first (--to 0: all). \
            Refuses before changing anything when one of them has no down section, or when the \
            database holds migrations newer than this folder (a newer release's). A roll back \
            that drops data (DROP TABLE, DROP COLUMN, TRUNCATE, DELETE in a down section) or goes \
            to 0 asks for yes on a terminal, and without one needs --yes (else exit 2, nothing changed).
            """,
        options: [Option("to", valueName: "V", help: "Roll back everything newer than version V.", type: .integer)],
        flags: [Flag("yes", short: "y", help: "Confirm a roll back that drops data, without asking.")],
        run: { values in try await MigrateCommands.down(values) }
    )

    static let verify = Command(
        "verify",
        abstract: "Check the folder against the history (exit 6 on drift).",
        discussion: """
            An applied file that changed, an applied version whose file is gone (above the folder's \
            newest file too: a newer release's), or a pending file \
            numbered below the newest applied one is an error naming the file, and so is an INVALID \
            index a failed or killed concurrent build left. Reads only. --json prints one document: \
            verified, applied, pending, drifted (version, file, state), invalid_indexes (index, table); \
            the exit code is as without it.
            """,
        flags: [Flag("json", help: "Print one JSON document.")],
        run: { values in try await MigrateCommands.verify(values) }
    )

    static let plan = Command(
        "plan",
        abstract: "Print the SQL that up would run.",
        discussion: "Runs the same verification and lint checks as up; changes nothing.",
        options: [Option("to", valueName: "V", help: "Stop after version V.", type: .integer)],
        run: { values in try await MigrateCommands.plan(values) }
    )

    static let new = Command(
        "new",
        abstract: "Create the next NNNN_name.sql file.",
        discussion:
            "Writes empty -- migrate:up and -- migrate:down sections and prints the path. NAME may use letters, digits, spaces, dashes and underscores; it becomes snake_case.",
        positionals: [Positional("name", valueName: "NAME", help: "What the migration does, e.g. add_due_dates.")],
        run: { values in try await MigrateCommands.new(values) }
    )

    static let lint = Command(
        "lint",
        abstract: "Report lock, rewrite, breakage and safety hazards (no database needed).",
        discussion: """
            One line per hazard: file:line:column: rule: what it locks or breaks, for how long, and \
            what to write instead. Every file is reported, unreadable ones included, before the exit \
            code: 6 when a hazard is not allowed by -- lint:allow RULE in its file (or a file cannot \
            be read). Files are read in order as one history: a CHECK (col IS NOT NULL) validated in \
            an earlier file (or, when DATABASE_URL is set, in the database) makes SET NOT NULL safe, \
            and a SECURITY DEFINER function is reported only if no later file fixes its search_path. \
            A named FILE in the folder is linted with the folder around it. Statements on tables \
            created earlier in the same file skip the lock and breakage rules; down sections are not \
            linted. --explain RULE says more about one rule.

            Rules:
            \(LintRule.allCases.map { "\($0.rawValue): \($0.summary)" }.joined(separator: "\n"))
            """,
        positionals: [Positional("files", valueName: "FILE", arity: .zeroOrMore, help: "Files to lint (default: every file in the folder).")],
        options: [Option("explain", valueName: "RULE", help: "Explain one rule: what it locks or breaks, for how long, the safe way.")],
        flags: [
            Flag("json", help: "Print one JSON document: files, refused, findings (file, line, column, rule, message, allowed)."),
            Flag("offline", help: "Do not read the database even when DATABASE_URL is set."),
        ],
        run: { values in try await MigrateCommands.lint(values) }
    )

    static let baseline = Command(
        "baseline",
        abstract: "Record migrations up to V as applied without running them.",
        discussion: "For a database whose schema existed before taskmigrate managed it. Only on an empty history (exit 5 otherwise).",
        positionals: [Positional("version", valueName: "V", type: .integer, help: "The newest version the database already has.")],
        run: { values in try await MigrateCommands.baseline(values) }
    )
}
