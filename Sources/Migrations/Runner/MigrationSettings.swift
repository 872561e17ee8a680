import Foundation

/// How a run protects the database and itself: timeouts on every migration, the retry policy
/// for lock timeouts, and how long to wait for another runner.
public struct MigrationSettings: Sendable {
    /// `lock_timeout` for every migration statement: long enough for a busy table's short
    /// transactions to finish, short enough that the queue behind us never stalls the app.
    public var lockTimeout: Duration = .seconds(5)
    /// `statement_timeout` for every migration statement.
    public var statementTimeout: Duration = .seconds(15 * 60)
    /// How many times a migration that hit its lock timeout is tried again.
    public var lockRetries: Int = 5
    /// The pause before the first retry; it doubles (with jitter) up to `maximumBackoff`.
    public var initialBackoff: Duration = .seconds(1)
    /// The longest pause between retries.
    public var maximumBackoff: Duration = .seconds(30)
    /// How long to wait for another runner's migration lock before giving up.
    public var migrationLockWait: Duration = .seconds(10 * 60)
    /// How often the migration lock is tried while another runner holds it.
    public var migrationLockPoll: Duration = .milliseconds(250)
    /// Whether `up` (and its dry run) accepts migrations applied above the folder's newest file
    /// (`MigrationState.ahead`: a newer release's, after the programs were rolled back on
    /// purpose). Without it they stop every run like drift: a folder that lost its newest files,
    /// or a wrong `--dir`, must not pass for an older release.
    public var allowNewer = false
    /// Who applies the migrations, recorded next to the database role in the history.
    public var operatorName: String = MigrationSettings.defaultOperatorName()

    /// The defaults.
    public init() {}

    /// The pause before retry number `attempt` (1-based), before jitter.
    public func backoff(beforeRetry attempt: Int) -> Duration {
        let factor = 1 << min(max(attempt - 1, 0), 20)
        return min(maximumBackoff, initialBackoff * factor)
    }

    /// `user@host` of this process.
    public static func defaultOperatorName() -> String {
        "\(NSUserName())@\(ProcessInfo.processInfo.hostName)"
    }
}
