import TaskCore
import TaskStoreContract
import TaskStorePG
import Testing

@Test("the Postgres store keeps the store contract", arguments: TaskStoreContract.checks)
func postgresStoreKeepsTheContract(_ check: ContractCheck) async throws {
    try await check.run(against: SharedStore.store())
}
