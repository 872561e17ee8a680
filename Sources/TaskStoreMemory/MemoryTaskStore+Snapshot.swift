import TaskCore

extension MemoryTaskStore: ReadSnapshotting {
    /// A copy of the whole state as of now (copy on write: nothing is copied until the store
    /// changes), without this store's watchers: later writes here do not reach it.
    public func withReadSnapshot<T: Sendable>(_ body: @Sendable (any TaskStore) async throws -> T) async throws -> T {
        var copy = state.withLock { $0 }
        copy.doorbells = [:]
        copy.tokenListeners = [:]
        return try await body(MemoryTaskStore(state: copy))
    }
}
