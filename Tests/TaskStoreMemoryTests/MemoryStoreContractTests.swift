import TaskCore
import TaskStoreContract
import TaskStoreMemory
import Testing

@Test("the memory store keeps the store contract", arguments: TaskStoreContract.checks)
func memoryStoreKeepsTheContract(_ check: ContractCheck) async throws {
    try await check.run(against: MemoryTaskStore())
}
