extension TaskService {
    /// How the store's schema stands against this build; throws when the store cannot be
    /// reached. `taskserve` asks at start and on every `/readyz`.
    public func schemaStatus() async throws -> SchemaStatus {
        try await store.schemaStatus()
    }
}
