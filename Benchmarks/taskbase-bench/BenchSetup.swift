import Foundation
import Migrations
import PGStore
import TaskCore
import TaskStorePG

/// Prepares the benchmark database: schema, one user, and the teams the workloads use.
enum BenchSetup {
    static let ownerEmail = "bench.owner@example.com"
    static let readTeam = "BREAD"
    static let readTeamSize = 1_000
    static let listTeam = "BLIST"
    /// The team W8 changes over HTTP (PATCH), apart from the read team so reads see no churn.
    static let patchTeam = "BPATCH"

    /// Migrates, creates the owner, the read team and the patch team (1,000 tasks each) when missing, and the list
    /// team with `listTeamSize` tasks (inserted by SQL: it is data, not a measurement).
    static func run(config: PGConfig, migrations: String, listTeamSize: Int) async throws {
        _ = try await MigrationRunner(directory: MigrationDirectory(path: migrations), config: config).up()
        let store = try await PostgresTaskStore.open(config: config, maxConnections: 2)
        let service = TaskService(store: store)
        let owner: UserRef = .email(ownerEmail)
        if (try? await service.user(owner)) == nil {
            _ = try await service.createUser(email: ownerEmail, displayName: "Bench Owner")
        }
        for (key, name) in [(readTeam, "Point reads"), (patchTeam, "HTTP patches")]
        where (try? await service.team(try TeamKey(key), as: owner)) == nil {
            _ = try await service.createTeam(key: key, name: name, as: owner)
            let drafts = try (1...readTeamSize).map { index in
                try TaskImportDraft(
                    try TaskDraft(
                        title: "Read task \(index)", notes: "Notes of task \(index)", priority: .medium,
                        category: index % 3 == 0 ? nil : "Area \(index % 7)", externalID: "read-\(index)"))
            }
            _ = try await service.importTasks(into: try TeamKey(key), policy: .update, drafts: drafts, as: owner)
        }
        if listTeamSize > 0 {
            let key = try TeamKey(listTeam)
            let existing = try? await service.team(key, as: owner)
            if existing == nil { _ = try await service.createTeam(key: listTeam, name: "Big list", as: owner) }
            let connection = try await PGConnection.connect(config)
            let have = try await connection.query(
                """
                SELECT count(*) AS n FROM tasks t JOIN teams tm ON tm.id = t.team_id WHERE tm.key = \(listTeam)
                """)[0].decode(Int.self, "n")
            if have < listTeamSize {
                try await connection.withTransaction { tx in
                    // The counter first: a task's number must be one its transaction took from
                    // the counter (migrations 0023, 0028).
                    try await tx.execute(
                        """
                        UPDATE task_counters c SET last_number = \(listTeamSize) FROM teams tm
                         WHERE tm.id = c.team_id AND tm.key = \(listTeam)
                        """)
                    try await tx.execute(
                        """
                        INSERT INTO tasks (team_id, number, title, notes, status, priority, due_date, category, external_id,
                                           created_by, created_at, updated_by, updated_at)
                        SELECT tm.id, n, 'List task ' || n, 'Generated row ' || n,
                               (ARRAY['open','in_progress','done'])[1 + n % 3],
                               (ARRAY['none','low','medium','high','urgent'])[1 + n % 5],
                               DATE '2026-01-01' + (n % 365)::int,
                               CASE WHEN n % 4 = 0 THEN NULL ELSE 'Area ' || (n % 11) END,
                               'list-' || n, u.id, now(), u.id, now()
                          FROM teams tm, users u, generate_series(\(have + 1), \(listTeamSize)) AS n
                         WHERE tm.key = \(listTeam) AND u.email = \(ownerEmail)
                        """)
                }
                try await connection.execute("ANALYZE tasks")
            }
            await connection.close()
        }
    }
}
