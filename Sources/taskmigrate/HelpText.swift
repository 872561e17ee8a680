/// The help of taskmigrate and of each of its commands.
enum HelpText {
    static let connection = """
        Connection: DATABASE_URL (postgres:// URI or key=value), else the PG* variables; a .env
        file in the working directory fills in what the environment does not set. Connect
        directly to PostgreSQL, not through PgBouncer in transaction mode: the migration lock and
        the timeouts are session settings.
        """

    static let runOptions = """
        Options:
          --dir PATH                migrations folder (default: $TASKBASE_MIGRATIONS_DIR, else ./migrations)
          --lock-timeout DURATION   lock_timeout for every migration statement (default 5s)
          --statement-timeout DURATION
                                    statement_timeout for every migration statement (default 15min)
          --lock-retries N          retries after a lock timeout, with doubling backoff (default 5)
          --lock-wait DURATION      how long to wait for another runner's migration lock (default 10min)
        Durations: 500ms, 5s, 2min, 1h (a bare number is milliseconds).
        """

    static let overview = """
        taskmigrate — apply, verify and plan Taskbase's schema migrations

        Usage: taskmigrate COMMAND [options]

        Commands:
          status [--json]            every migration and its state (applied, pending, changed, missing, out_of_order)
          up [--to V] [--dry-run]    apply pending migrations (all, or up to version V)
          down [--to V]              roll back the newest migration (or all newer than V; 0 for all)
          verify                     check the folder against the history; exit 6 on drift
          plan                       print the SQL that up would run
          new NAME                   create the next NNNN_name.sql file
          lint [FILES]               report lock and rewrite hazards (default: every file in the folder)
          baseline V                 record migrations up to V as applied without running them

        Global: --help (on any command), --version.
        Exit codes: 0 ok, 1 failed, 2 usage, 3 cannot connect, 4 permission denied,
        5 conflict (lock busy, lock timeout), 6 input rejected (drift, lint, bad file).

        \(connection)
        """

    static func forCommand(_ command: String) -> String? {
        let body: String
        switch command {
        case "status":
            body = """
                Usage: taskmigrate status [--json] [--dir PATH]

                Lists every migration found in the folder or the history with its state: applied,
                pending, changed (file edited after it was applied), missing (applied, file gone) or
                out_of_order (not applied, numbered below the newest applied one). --json prints one
                document: version, name, file, state, checksum, applied_at and more for each.
                Reads only; takes no lock.
                """
        case "up":
            body = """
                Usage: taskmigrate up [--to V] [--dry-run] [options]

                Applies pending migrations in order. Each runs in its own transaction together with
                its history row (unless the file says -- migrate:no-transaction), with lock_timeout
                and statement_timeout set; a lock timeout is retried with backoff, then reported with
                the session that blocked it. Only one runner works at a time (an advisory lock); the
                others wait, then find the database up to date. Refuses to start on drift (exit 6)
                or on lint hazards the file does not allow with -- lint:allow RULE (exit 6).
                  --to V       stop after version V
                  --dry-run    list what would run, change nothing
                """
        case "down":
            body = """
                Usage: taskmigrate down [--to V] [options]

                Rolls back the newest applied migration by running its -- migrate:down section, and
                removes its history row in the same transaction. With --to V, rolls back every
                applied migration newer than V, newest first (--to 0: all of them). Refuses before
                changing anything when one of them has no down section.
                """
        case "verify":
            body = """
                Usage: taskmigrate verify [--dir PATH]

                Compares the folder with the history: an applied file that changed, an applied
                version whose file is gone, or a pending file numbered below the newest applied one
                is an error (exit 6) naming the file. Reads only.
                """
        case "plan":
            body = """
                Usage: taskmigrate plan [--to V] [--dir PATH]

                Prints the SQL of every pending migration (up to V), as up would run it, after the
                same verification and lint checks. Changes nothing.
                """
        case "new":
            body = """
                Usage: taskmigrate new NAME [--dir PATH]

                Creates the next migration file, NNNN_name.sql, with empty -- migrate:up and
                -- migrate:down sections, and prints its path. NAME may use letters, digits, spaces,
                dashes and underscores; it becomes snake_case.
                """
        case "lint":
            body = """
                Usage: taskmigrate lint [FILES...] [--dir PATH]

                Reports lock and rewrite hazards in the up sections, one line each: file:line: rule:
                reason. Exit 6 when a hazard is not allowed by -- lint:allow RULE in its file.
                Statements on tables created earlier in the same file are not flagged.
                Rules:
                  create-index-not-concurrently        CREATE INDEX on an existing table without CONCURRENTLY
                  add-column-not-null-without-default  ADD COLUMN ... NOT NULL with no DEFAULT
                  volatile-default                     ADD COLUMN with a volatile default, serial, identity or stored generated value
                  alter-column-type                    ALTER COLUMN ... TYPE
                  constraint-without-not-valid         FOREIGN KEY or CHECK added without NOT VALID
                  set-not-null                         ALTER COLUMN ... SET NOT NULL
                  drop-column                          ALTER TABLE ... DROP COLUMN
                  drop-table                           DROP TABLE
                  no-transaction-multiple-statements   a no-transaction file with more than one statement
                  concurrently-in-transaction          CONCURRENTLY in a file that runs in a transaction
                  timeout-disabled                     SET lock_timeout/statement_timeout to 0
                Needs no database.
                """
        case "baseline":
            body = """
                Usage: taskmigrate baseline V [options]

                Records every migration up to version V as applied, without running it, for a
                database whose schema existed before taskmigrate managed it. Only on an empty
                history (exit 5 otherwise).
                """
        default:
            return nil
        }
        return body + "\n\n" + (["new", "lint"].contains(command) ? "" : runOptions + "\n\n" + connection)
    }
}
