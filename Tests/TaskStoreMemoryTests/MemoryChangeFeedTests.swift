import TaskCore
import TaskStoreMemory
import Testing

/// A memory store with one owner and their team CORE.
private func storeWithTeam() async throws -> (MemoryTaskStore, TaskService, TeamKey, UserRef) {
    let store = MemoryTaskStore()
    let service = TaskService(store: store)
    let owner = UserRef.id(try await service.createUser(email: "owner@example.com", displayName: "Owner").id)
    let team = try await service.createTeam(key: "CORE", name: "Core", as: owner)
    return (store, service, team.key, owner)
}

@Test("a listener that stops watching leaves no subscription behind")
func stoppedListenerIsRemoved() async throws {
    let (store, service, team, owner) = try await storeWithTeam()
    let watcher = Task {
        for try await _ in try await service.changes(in: team, as: owner) {}
    }
    while store.listenerCount == 0 { await Task.yield() }
    watcher.cancel()
    _ = await watcher.result
    #expect(store.listenerCount == 0)
}

@Test("deleting a team ends its listeners' streams")
func deletedTeamEndsStreams() async throws {
    let (store, service, team, owner) = try await storeWithTeam()
    let stream = try await service.changes(in: team, as: owner)
    try await service.deleteTeam(team, as: owner)
    var received = 0
    for try await _ in stream { received += 1 }
    #expect(received == 0)
    #expect(store.listenerCount == 0)
}
