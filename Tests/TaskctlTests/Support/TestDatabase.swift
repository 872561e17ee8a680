import Foundation
import PGStore
import TaskbaseTestSupport

/// A database of this test process's own on the server `scripts/test` names, migrated to the
/// newest schema once; its URL is what the `taskctl` processes get as `DATABASE_URL`.
enum TestDatabase {
    /// The connection string of the migrated database.
    static let url = Task<String, any Error> { TestDatabases.connectionString(try await TestDatabases.shared.value) }

    /// How many sessions are listening to the change feed of `team` right now.
    static func listeners(of team: String) async throws -> Int {
        let connection = try await PGConnection.connect(try PGConfig(connectionString: try await url.value))
        let statement = "LISTEN \"taskbase.team.\(team)\""
        let rows = try await connection.query(
            """
            SELECT count(*)::int AS listeners FROM pg_stat_activity
            WHERE datname = current_database() AND query = \(statement) AND pid <> pg_backend_pid()
            """)
        await connection.close()
        return try rows.first.map { try $0.decode(Int.self, "listeners") } ?? 0
    }

    /// Polls until `team` has `count` listeners, for at most `timeout` seconds; returns the last count.
    static func waitForListeners(of team: String, count: Int, timeout: Double = 10) async throws -> Int {
        let deadline = Date().addingTimeInterval(timeout)
        var seen = try await listeners(of: team)
        while seen != count && Date() < deadline {
            try await Task.sleep(for: .milliseconds(50))
            seen = try await listeners(of: team)
        }
        return seen
    }
}
