import TaskCore

extension MemoryTaskStore: SchemaStatusReporting {
    /// A memory store has no schema to fall behind.
    public func schemaStatus() async throws -> SchemaStatus {
        .current
    }
}
