import Foundation
import TaskCore
import TaskSessionContract
import TaskStoreMemory
import TaskStorePG
import TaskbaseTestSupport
import Testing

/// Where a session suite runs: the service in process over each store, and (below) the HTTP
/// client against a real server over each store.
enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case memory = "service over the memory store"
    case postgres = "service over the Postgres store"

    var testDescription: String { rawValue }

    /// A fresh host: its own memory store, or a store over the test process's database.
    func host() async throws -> SessionHost {
        switch self {
        case .memory: SessionHost.local(MemoryTaskStore())
        case .postgres: SessionHost.local(try await Self.postgresStore.value)
        }
    }

    private static let postgresStore = Task<PostgresTaskStore, any Error> {
        try await PostgresTaskStore.open(config: TestDatabases.shared.value)
    }
}
