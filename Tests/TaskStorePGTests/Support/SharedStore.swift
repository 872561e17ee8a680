import Foundation
import PGStore
import TaskbaseTestSupport
@testable import TaskStorePG

/// The migrated database of this test process, and one store over it.
enum PostgresTestDatabase {
    static var shared: Task<PGConfig, any Error> { TestDatabases.shared }

    /// A store over the migrated database.
    static func store() async throws -> PostgresTaskStore {
        try await storeTask.value
    }

    private static let storeTask = Task<PostgresTaskStore, any Error> {
        try await PostgresTaskStore.open(config: TestDatabases.shared.value)
    }
}
