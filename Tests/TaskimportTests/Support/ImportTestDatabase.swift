import PGStore
import TaskCore
import TaskStorePG
import TaskbaseTestSupport

/// The migrated database of this test process (`TestDatabases`), its connection string for the
/// taskimport processes, and a service over it for setting up and checking.
enum ImportTestDatabase {
    /// The database for this test process.
    static let config = Task<PGConfig, any Error> { try await TestDatabases.createMigrated(purpose: "import") }

    /// Its `DATABASE_URL` for child processes.
    static func connectionString() async throws -> String {
        TestDatabases.connectionString(try await config.value)
    }

    /// A service over the database, shared by the tests of this process.
    static func service() async throws -> TaskService {
        TaskService(store: try await store.value)
    }

    /// Suites run in parallel on a shared, often loaded machine: a call waits up to 30 s for a
    /// connection (as the server tests' store does) rather than failing a test on a slow moment.
    private static let store = Task<PostgresTaskStore, any Error> {
        try await PostgresTaskStore.open(config: config.value, maxConnections: 8, acquireTimeout: .seconds(30))
    }
}
