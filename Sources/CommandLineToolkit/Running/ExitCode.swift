import Foundation

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
    /// Stopped by SIGHUP (the terminal closed) before the work was done: 128 + 1.
    case hungUp = 129
    /// Stopped by SIGTERM (`kill`, `timeout`) before the work was done: 128 + 15.
    case terminated = 143

    /// The code for a command stopped by signal `number`: 128 + the number, as shells report it.
    public static func stopped(by number: Int32) -> ExitCode {
        switch number {
        case SIGHUP: .hungUp
        case SIGTERM: .terminated
        default: .interrupted
        }
    }

    /// The signal's name for messages: `SIGTERM`.
    public static func signalName(_ number: Int32) -> String {
        switch number {
        case SIGHUP: "SIGHUP"
        case SIGTERM: "SIGTERM"
        case SIGINT: "Ctrl-C (SIGINT)"
        default: "signal \(number)"
        }
    }
}
