import Foundation
import PGStore
import TaskCore
import TaskStoreContract
import TaskStorePG
import TaskbaseTestSupport
import Testing

@Suite("taskimport killed mid-way", .timeLimit(.minutes(3)))
struct ImportKillTests {
    static let rows = 200_000

    /// What an import may change: every task of the database, condensed.
    static func tasksDigest(_ database: TestDatabase) async throws -> String {
        try await database.withConnection { connection in
            try await connection.query(
                """
                SELECT count(*)::text || ' ' || coalesce(md5(string_agg(team_id || ':' || number || ':' || title || ':' \
                || coalesce(external_id, '') || ':' || version, ',' ORDER BY team_id, number)), '') AS digest FROM tasks
                """)[0].decode(String.self, "digest")
        }
    }

    @Test("taskimport killed with SIGKILL halfway through a 200,000-row file leaves the tasks exactly as before; the rerun imports every row once")
    func killedImport() async throws {
        try await TestDatabase.with(migrated: true, purpose: "reliability") { database in
            let fixture = try await ContractFixture.make(store: try await PostgresTaskStore.open(config: database.config, maxConnections: 2))
            try await fixture.makeTask("There before the import")
            let member = try await fixture.service.user(fixture.member).email
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("reliability-import-\(UUID().uuidString).csv")
            var text = "External ID,Title\n"
            text.reserveCapacity(Self.rows * 24)
            for row in 1...Self.rows { text += "row-\(row),Imported task \(row)\n" }
            try text.write(to: file, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(at: file) }

            let before = try await Self.tasksDigest(database)
            let taskimport = BuiltProgram.url("taskimport")
            let arguments = [file.path, "--team", fixture.team.rawValue, "--as", member]
            let environment = ["DATABASE_URL": database.url]
            let importer = try BuiltProgram.start(taskimport, arguments: arguments, environment: BuiltProgram.environment(adding: environment))
            // Kill it once it has been copying rows for a moment.
            try await waitUntil("taskimport to start copying", limit: .seconds(60)) {
                try await Self.busySessions(database, running: "COPY %") > 0
            }
            try await Task.sleep(for: .seconds(1))
            kill(importer.processIdentifier, SIGKILL)
            let killed = await importer.finish()
            try #require(killed.killedBySignal, "taskimport ended before it could be killed: \(killed)")

            try await waitUntil("the killed import's session to end") { try await Self.busySessions(database, running: "%") == 0 }
            #expect(try await Self.tasksDigest(database) == before)

            let rerun = try await BuiltProgram.run(taskimport, arguments: arguments, environment: BuiltProgram.environment(adding: environment))
            #expect(rerun.exitCode == 0, "\(rerun)")
            let counts = try await database.withConnection { connection in
                try await connection.query(
                    """
                    SELECT count(*) AS tasks, count(DISTINCT external_id) AS ids FROM tasks WHERE external_id LIKE 'row-%'
                    """)[0]
            }
            #expect(try counts.decode(Int.self, "tasks") == Self.rows)
            #expect(try counts.decode(Int.self, "ids") == Self.rows)
        }
    }

    /// Sessions of other clients in `database` that are not idle, running a statement like `pattern`.
    static func busySessions(_ database: TestDatabase, running pattern: String) async throws -> Int {
        try await database.withConnection { connection in
            try await connection.query(
                """
                SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
                   AND state IS DISTINCT FROM 'idle' AND query LIKE \(pattern)
                """)[0].decode(Int.self, "n")
        }
    }
}
