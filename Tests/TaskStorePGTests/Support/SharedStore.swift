import Foundation
import PGStore
import TaskbaseTestSupport
@testable import TaskStorePG

/// One store over the migrated database of this test process (`TestDatabases.shared`).
enum SharedStore {
    /// A store over the migrated database.
    static func store() async throws -> PostgresTaskStore {
        try await storeTask.value
    }

    /// Every contract check runs at once over it (a 10,001-task import among them): a wider
    /// pool and a longer wait than the programs' keep a loaded machine from timing them out.
    private static let storeTask = Task<PostgresTaskStore, any Error> {
        try await PostgresTaskStore.open(config: TestDatabases.shared.value, maxConnections: 16, acquireTimeout: .seconds(30))
    }
}
