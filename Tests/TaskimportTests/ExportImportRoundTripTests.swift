import Foundation
import TaskCore
import TaskbaseTestSupport
import Testing

@Suite("taskctl export → taskimport, as processes")
struct ExportImportRoundTripTests {
    @Test("a team exported by taskctl and imported into another team by taskimport keeps every field")
    func roundTrip() async throws {
        let source = try await ImportFixture.make()
        let service = source.service
        let owner: UserRef = .email(source.owner)
        let drafts = [
            try TaskDraft(title: "Plain task"),
            try TaskDraft(
                title: "Quotes \"here\", commas, and ✓ unicode", notes: "Line one\nLine two, with \"quotes\"",
                status: .inProgress, priority: .urgent, dueDate: CalendarDate(year: 2026, month: 12, day: 24),
                assignee: .email(source.ann), category: "Ops", externalID: "EXT-1"),
            try TaskDraft(title: "Done and assigned", status: .done, priority: .low, assignee: .email(source.bo), category: "Release"),
            try TaskDraft(title: "  Leading and trailing notes  ", notes: "  indented notes", dueDate: CalendarDate(year: 2027, month: 2, day: 28)),
        ]
        for draft in drafts { _ = try await service.createTask(in: source.team, draft, as: owner) }
        let exported = try await service.listTasks(in: source.team, TaskQuery(limit: 100), as: owner).tasks

        let export = try await BuiltProgram.run(
            BuiltProgram.url("taskctl"), arguments: ["export", "--team", source.team.rawValue, "--format", "csv", "--as", source.owner],
            environment: try await Self.environment())
        #expect(export.exitCode == 0, "\(export.standardError)")
        let file = try source.file("export.csv", export.standardOutput)

        let target = try await service.createTeam(key: "R" + source.team.rawValue.dropFirst(), name: "Round trip", as: owner).key
        for member in [source.ann, source.bo] { try await service.setRole(.member, for: .email(member), in: target, as: owner) }
        let imported = try await TaskimportProcess.run([file, "--team", target.rawValue, "--as", source.owner, "--no-progress"])
        #expect(imported.exitCode == 0, "\(imported.standardError)")
        let copies = try await service.listTasks(in: target, TaskQuery(limit: 100), as: owner).tasks

        #expect(copies.count == exported.count)
        for (original, copy) in zip(exported, copies) {
            #expect(copy.title == original.title)
            #expect(copy.notes == original.notes)
            #expect(copy.status == original.status)
            #expect(copy.priority == original.priority)
            #expect(copy.dueDate == original.dueDate)
            #expect(copy.assigneeID == original.assigneeID)
            #expect(copy.category == original.category)
            #expect(copy.externalID == (original.externalID ?? original.key.description))
        }
        let again = try await TaskimportProcess.run([file, "--team", target.rawValue, "--as", source.owner, "--no-progress", "--json"])
        #expect(again.exitCode == 0)
        #expect(
            again.standardOutput.contains("\"unchanged\" : \(exported.count)") || again.standardOutput.contains("\"unchanged\":\(exported.count)"),
            "\(again.standardOutput)")
    }

    /// taskctl's environment: the test database, no actor.
    static func environment() async throws -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["DATABASE_URL"] = try await ImportTestDatabase.connectionString()
        environment["TASKBASE_ACTOR"] = nil
        return environment
    }
}
