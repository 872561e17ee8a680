import CommandLineToolkit
import PGStore

/// `--lock-timeout` and `--statement-timeout` (or `TASKBASE_LOCK_TIMEOUT` and
/// `TASKBASE_STATEMENT_TIMEOUT`): the limits every statement of taskctl and taskimport runs
/// under, so a blocked command fails clearly instead of waiting silently forever.
public enum SessionLimitOptions {
    /// The two options, with the program's defaults shown in its help.
    public static func options(lockTimeout: Duration, statementTimeout: Duration) -> [Option] {
        [
            Option(
                "lock-timeout", valueName: "DURATION",
                help:
                    "How long a statement waits for a lock another session holds before giving up (exit 5), naming that session: 500ms, 10s, 2min; 0 or none waits forever.",
                default: lockTimeout.displayText, environment: "TASKBASE_LOCK_TIMEOUT"),
            Option(
                "statement-timeout", valueName: "DURATION",
                help: "How long one statement may run before it is cancelled; 0 or none for no limit.",
                default: statementTimeout.displayText, environment: "TASKBASE_STATEMENT_TIMEOUT"),
        ]
    }

    /// The limits the command line (or environment, or default) gives; a bad duration is a usage error.
    public static func limits(from values: ParsedValues) throws(UsageError) -> PGSessionLimits {
        PGSessionLimits(
            lockTimeout: try DurationText.parse(values.requiredString("lock-timeout"), option: values.source(of: "lock-timeout")),
            statementTimeout: try DurationText.parse(values.requiredString("statement-timeout"), option: values.source(of: "statement-timeout")))
    }
}
