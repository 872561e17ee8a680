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

@Test("deleting a team ends its watchers' streams: their next read is refused")
func deletedTeamEndsStreams() async throws {
    let (store, service, team, owner) = try await storeWithTeam()
    let stream = try await service.changes(in: team, as: owner)
    try await service.deleteTeam(team, as: owner)
    var received = 0
    await #expect(throws: TaskError.self) {
        for try await _ in stream { received += 1 }
    }
    #expect(received == 0)
    for _ in 0..<1_000 where store.listenerCount > 0 { try await Task.sleep(for: .milliseconds(1)) }
    #expect(store.listenerCount == 0)
}

@Test("a watcher resuming before the oldest entry the log keeps is told to resync, then gets the rest")
func resumeBeforeTheLogResyncs() async throws {
    let store = MemoryTaskStore(changeLogLimit: 2)
    let service = TaskService(store: store)
    let owner = UserRef.id(try await service.createUser(email: "owner@example.com", displayName: "Owner").id)
    let team = try await service.createTeam(key: "CORE", name: "Core", as: owner).key
    for title in ["One", "Two", "Three", "Four"] { _ = try await service.createTask(in: team, try TaskDraft(title: title), as: owner) }
    var events = try await service.changes(in: team, after: 0, as: owner).makeAsyncIterator()
    #expect(try await events.next() == .resync(through: 2))
    #expect(try await events.next()?.sequence == 3)
    #expect(try await events.next()?.sequence == 4)
}
