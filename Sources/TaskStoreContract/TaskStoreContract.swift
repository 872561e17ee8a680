/// The checks every TaskCore store must pass.
public enum TaskStoreContract {
    /// All of them, grouped by concern.
    public static var checks: [ContractCheck] {
        permissionChecks + membershipChecks + validationChecks + listChecks + concurrencyChecks
            + historyChecks + changeFeedChecks + importChecks + summaryChecks + tokenChecks + operatorChecks
    }
}
