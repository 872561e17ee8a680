import TaskSessionContract
import Testing

@Test("every session keeps the session contract", arguments: Backend.allCases, TaskSessionContract.checks)
func sessionKeepsTheContract(_ backend: Backend, _ check: SessionCheck) async throws {
    try await check.run(on: try await backend.host())
}
