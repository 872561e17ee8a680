import Foundation
import PGStore
import TaskbaseTestSupport
import Testing

extension EndToEnd {
    @Suite("What the server says besides its replies")
    struct ServerMessageTests {
        @Test("messages the server sends while a session starts (a database's client_min_messages) never reach the program's stderr")
        func startupMessagesStayQuiet() async throws {
            let folder = try MigrationFolder(["0001_a.sql": "CREATE TABLE a (id int);\n"])
            defer { folder.delete() }
            try await TestDatabase.with(migrated: false, purpose: "migrations") { database in
                // At debug5 the backend reports its start-up transaction before the session is ready.
                try await database.withConnection { connection in
                    try await connection.execute(PGQuery(unsafeSQL: "ALTER DATABASE \"\(database.name)\" SET client_min_messages = debug5"))
                }
                let status = try await TaskMigrateProcess.run(["status"], databaseURL: database.url, folder: folder)
                #expect(status.status == 0, "\(status.stderr)")
                #expect(status.stdout.contains("pending"), "\(status.stdout)")
                #expect(status.stderr.isEmpty, "\(status.stderr)")
            }
        }
    }
}
