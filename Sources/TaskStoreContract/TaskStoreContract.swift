/// The checks every TaskCore store must pass.
public enum TaskStoreContract {
    /// All of them, grouped by concern.
    public static var checks: [ContractCheck] {
        permissionChecks + membershipChecks + validationChecks + listChecks + concurrencyChecks
            + historyChecks + changeFeedChecks + importChecks + summaryChecks + tokenChecks + operatorChecks + idempotencyChecks
    }

    /// The pool a database store needs to run every check at once (a 10,001-task import among
    /// them): wider than the programs' and with a longer wait, so a loaded machine does not time
    /// a check out waiting for a connection.
    public static let concurrentRunConnections = 16
    /// How long a check may wait for one of those connections.
    public static let concurrentRunAcquireTimeout: Duration = .seconds(30)
}
