import Foundation
import PGStore
import TaskbaseTestSupport

/// The sessions listening to a team's change feed in the test database, seen from the server.
enum ChangeFeedListeners {
    /// How many sessions are listening to the change feed of `team` right now.
    static func count(of team: String) async throws -> Int {
        let statement = "LISTEN \"taskbase.team.\(team)\""
        return try await PGConnection.with(try await TestDatabases.shared.value) { connection in
            let rows = try await connection.query(
                """
                SELECT count(*)::int AS listeners FROM pg_stat_activity
                WHERE datname = current_database() AND query = \(statement) AND pid <> pg_backend_pid()
                """)
            return try rows.first.map { try $0.decode(Int.self, "listeners") } ?? 0
        }
    }

    /// Waits until `team` has `count` listeners (`waitUntil`: 15 s at most).
    static func wait(for count: Int, of team: String) async throws {
        try await waitUntil("\(count) listener(s) of team \(team)") { try await Self.count(of: team) == count }
    }
}
