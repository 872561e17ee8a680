/// The limits every statement of a program runs under, applied per transaction (`SET LOCAL`,
/// through `set_config(name, value, true)`), so they hold behind PgBouncer in transaction mode,
/// where session settings and startup options do not.
public struct PGSessionLimits: Sendable, Equatable {
    /// `lock_timeout`: how long a statement waits for a lock before it fails with 55P03
    /// instead of waiting silently forever. Zero: no limit.
    public var lockTimeout: Duration
    /// `statement_timeout`: how long one statement may run. Zero: no limit.
    public var statementTimeout: Duration
    /// `client_connection_check_interval`: how often a running statement checks that its
    /// client is still there, so the work of a killed program stops within this long instead
    /// of running (and holding its locks) to the end. Zero: never checks.
    public var clientConnectionCheckInterval: Duration

    /// Limits with these values.
    public init(lockTimeout: Duration, statementTimeout: Duration, clientConnectionCheckInterval: Duration = .seconds(2)) {
        self.lockTimeout = lockTimeout
        self.statementTimeout = statementTimeout
        self.clientConnectionCheckInterval = clientConnectionCheckInterval
    }

    /// The settings' names and values in PostgreSQL's form (`"10000ms"`).
    public var settings: [(name: String, value: String)] {
        [
            ("lock_timeout", lockTimeout.postgresSetting), ("statement_timeout", statementTimeout.postgresSetting),
            ("client_connection_check_interval", clientConnectionCheckInterval.postgresSetting),
        ]
    }
}
