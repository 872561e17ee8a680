/// The exit codes every Taskbase program uses (docs/design.md, "The command-line contract"), so scripts can branch on them.
public enum ExitCode: Int32, Sendable, CaseIterable {
    /// Everything worked.
    case success = 0
    /// The work failed for a reason not listed below.
    case failure = 1
    /// The command line was wrong; the usage was printed.
    case usage = 2
    /// Could not connect to the database, or the configuration is unusable.
    case cannotConnect = 3
    /// The acting user may not do this.
    case permissionDenied = 4
    /// Someone else got there first: a stale version or a busy lock.
    case conflict = 5
    /// The input was refused: bad rows, migration drift.
    case inputRejected = 6
    /// Stopped by Ctrl-C before the work was done (128 + SIGINT, as shells report it).
    case interrupted = 130
}
