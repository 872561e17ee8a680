import Foundation
import PGStore
import TaskStoreContract
import TaskbaseTestSupport
@testable import TaskStorePG

/// One store over the migrated database of this test process (`TestDatabases.shared`).
enum SharedStore {
    /// A store over the migrated database.
    static func store() async throws -> PostgresTaskStore {
        try await storeTask.value
    }

    /// Every contract check runs at once over it.
    private static let storeTask = Task<PostgresTaskStore, any Error> {
        try await PostgresTaskStore.open(
            config: TestDatabases.shared.value, maxConnections: TaskStoreContract.concurrentRunConnections,
            acquireTimeout: TaskStoreContract.concurrentRunAcquireTimeout)
    }
}
