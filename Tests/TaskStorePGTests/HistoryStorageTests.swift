import Foundation
import PGStore
import TaskCore
import TaskbaseTestSupport
import Testing
@testable import TaskStorePG

@Suite("How Postgres stores history")
struct HistoryStorageTests {
    /// A service over the shared test database, a connection to it, and a fresh team `PREFIX...` owned by a fresh user.
    func fixture(_ prefix: String) async throws -> (service: TaskService, connection: PGConnection, team: TeamKey, owner: UserRef) {
        let config = try await TestDatabases.shared.value
        let service = TaskService(store: try await SharedStore.store())
        let suffix = String(UInt32.random(in: 0...UInt32.max), radix: 36).uppercased()
        let owner = try await service.createUser(email: "\(prefix.lowercased()).\(suffix.lowercased())@example.com", displayName: "Owner")
        let team = try await service.createTeam(key: prefix + suffix, name: "History \(suffix)", as: .id(owner.id)).key
        return (service, try await PGConnection.connect(config), team, .id(owner.id))
    }

    @Test("a created or imported task's entry keeps its values as an array, no JSON, and reads back every field it was given")
    func creationValuesAsArray() async throws {
        let (service, connection, team, owner) = try await fixture("H")
        defer { Task { await connection.close() } }
        let due = try #require(CalendarDate(year: 2026, month: 3, day: 10))
        let created = try await service.createTask(
            in: team, try TaskDraft(title: "Made, \"quoted\"", notes: "Line one\nline two", dueDate: due, category: "NULL"), as: owner)
        _ = try await service.importTasks(
            into: team, policy: .update,
            drafts: [try TaskImportDraft(try TaskDraft(title: "Imported {a,b}", priority: .high, externalID: "ext-1"))], as: owner)
        let imported = try #require(try await service.listTasks(in: team, as: owner).tasks.first { $0.externalID == "ext-1" })

        let stored = try await connection.query(
            "SELECT kind, changes::text AS changes, created_values FROM task_history WHERE team_id = \(created.teamID.rawValue) ORDER BY id")
        #expect(try stored.map { try $0.decode(String.self, "kind") } == ["created", "imported"])
        #expect(try stored.map { try $0.decode(String.self, "changes") } == ["[]", "[]"])
        #expect(
            try stored[0].decode([String].self, "created_values")
                == ["Made, \"quoted\"", "Line one\nline two", "open", "none", "2026-03-10", "", "NULL", ""])

        let made = try await service.history(of: created.key, as: owner)
        #expect(
            made.first?.changes == [
                FieldChange(field: .title, old: nil, new: "Made, \"quoted\""), FieldChange(field: .notes, old: nil, new: "Line one\nline two"),
                FieldChange(field: .status, old: nil, new: "open"), FieldChange(field: .priority, old: nil, new: "none"),
                FieldChange(field: .dueDate, old: nil, new: "2026-03-10"), FieldChange(field: .category, old: nil, new: "NULL"),
            ])
        let importedHistory = try await service.history(of: imported.key, as: owner)
        #expect(importedHistory.map(\.kind) == [.imported])
        #expect(
            importedHistory.first?.changes == [
                FieldChange(field: .title, old: nil, new: "Imported {a,b}"), FieldChange(field: .status, old: nil, new: "open"),
                FieldChange(field: .priority, old: nil, new: "high"), FieldChange(field: .externalID, old: nil, new: "ext-1"),
            ])
    }

    @Test("deleting a team deletes its history, which keeps no foreign key to teams")
    func teamDeletionTakesHistory() async throws {
        let (service, connection, team, owner) = try await fixture("G")
        defer { Task { await connection.close() } }
        let task = try await service.createTask(in: team, try TaskDraft(title: "Doomed"), as: owner)
        _ = try await service.updateTask(task.key, try TaskChanges(title: "Still doomed"), expectedVersion: nil, as: owner)
        try await service.deleteTeam(team, as: owner)

        let left = try await connection.query("SELECT count(*) AS n FROM task_history WHERE team_id = \(task.teamID.rawValue)")
        #expect(try left[0].decode(Int.self, "n") == 0)
    }
}
