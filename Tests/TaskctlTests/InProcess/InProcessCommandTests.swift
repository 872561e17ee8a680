import Foundation
import TaskCore
import TaskStoreMemory
import Testing

/// taskctl's commands run in this process over the memory store (`TaskctlRunner.inProcess`):
/// the same command tree and output as the built program, with storage injected, so a test
/// can fix the day and needs no server. The end-to-end suites keep the program honest.
@Suite("taskctl in process over the memory store")
struct InProcessCommandTests {
    /// 2026-03-10, 09:00 UTC: the day relative dates count from.
    static let day = Date(timeIntervalSince1970: 1_773_133_200)

    private func fixture() async throws -> Fixture {
        try await Fixture.make(runner: .inProcess(TaskService(store: MemoryTaskStore(), clock: .fixed(Self.day))))
    }

    @Test("relative due dates count from the service's day, and --overdue lists what is past due and not done")
    func relativeDates() async throws {
        let fixture = try await fixture()
        let later = try await fixture.addTask("In three days", ["--due", "+3d"])
        let late = try await fixture.addTask("Yesterday's", ["--due=-1d"])
        let finished = try await fixture.addTask("Done late", ["--due=-2w"])
        try await fixture.expectSuccess(["task", "done", finished], as: fixture.member)

        #expect(try await fixture.show(later)["due_date"] as? String == "2026-03-13")
        #expect(try await fixture.show(late)["due_date"] as? String == "2026-03-09")
        #expect(try await fixture.show(late)["overdue"] as? Bool == true)
        #expect(try await fixture.show(finished)["overdue"] as? Bool == false)
        let overdue = try await fixture.expectSuccess(["--json", "task", "list", "-t", fixture.team, "--overdue"], as: fixture.viewer).object()
        #expect((overdue["tasks"] as? [[String: Any]])?.compactMap { $0["key"] as? String } == [late])
        let soon = try await fixture.expectSuccess(
            ["--json", "task", "list", "-t", fixture.team, "--due-after", "today", "--due-before", "+7d"], as: fixture.viewer
        ).object()
        #expect((soon["tasks"] as? [[String: Any]])?.compactMap { $0["key"] as? String } == [later])
    }

    @Test("a stale --if-version is exit 5 naming the current version, and nothing is overwritten")
    func staleVersion() async throws {
        let fixture = try await fixture()
        let key = try await fixture.addTask("Original")
        try await fixture.expectSuccess(["task", "update", key, "--title", "Changed by admin", "--if-version", "1"], as: fixture.admin)
        let refused = try await fixture.expectFailure(5, ["task", "update", key, "--title", "Stale", "--if-version", "1"], as: fixture.member)
        #expect(
            refused.standardError
                == "taskctl: error: task \(key) is now at version 2, not the version the change was based on; nothing was changed: read it again and retry\n"
        )
        let task = try await fixture.show(key)
        #expect(task["title"] as? String == "Changed by admin" && task["version"] as? Int == 2)
    }

    @Test("an outsider asking for a task that exists gets the same exit 1 and message as for one that does not")
    func outsiderLearnsNothing() async throws {
        let fixture = try await fixture()
        let key = try await fixture.addTask("Secret")
        let existing = try await fixture.expectFailure(1, ["task", "show", key], as: fixture.outsider)
        let missing = try await fixture.expectFailure(1, ["task", "show", "\(fixture.team)-999"], as: fixture.outsider)
        #expect(existing.standardError == missing.standardError.replacingOccurrences(of: "\(fixture.team)-999", with: key))
    }

    @Test("a viewer reads but a write is exit 4 naming the role it takes")
    func viewerRefused() async throws {
        let fixture = try await fixture()
        let key = try await fixture.addTask("Guarded")
        let refused = try await fixture.expectFailure(4, ["task", "add", "-t", fixture.team, "New"], as: fixture.viewer)
        #expect(refused.standardError.contains("is a viewer") && refused.standardError.contains("member or above"))
        #expect(try await fixture.show(key)["version"] as? Int == 1)
    }

    @Test("export writes taskimport's columns, a task without an external id exporting its key")
    func export() async throws {
        let fixture = try await fixture()
        let key = try await fixture.addTask("Ship it", ["--due", "tomorrow", "--category", "Release", "--assignee", fixture.member])
        _ = try await fixture.addTask("Known", ["--external-id", "JIRA-7"])
        let csv = try await fixture.expectSuccess(["export", "-t", fixture.team], as: fixture.viewer).standardOutput
        let lines = csv.split(whereSeparator: \.isNewline).map(String.init)
        #expect(lines.first == "External ID,Title,Notes,Status,Priority,Due Date,Assignee,Category")
        #expect(lines.contains("\(key),Ship it,,open,none,2026-03-11,\(fixture.member),Release"))
        #expect(lines.contains { $0.hasPrefix("JIRA-7,Known,") })
    }

    @Test("without an acting user a task command is a usage error (exit 2) before any service is asked")
    func noActor() async throws {
        let result = try await TaskctlRunner.inProcess().run(["task", "list", "-t", "CORE"], nil)
        #expect(result.exitCode == 2)
        #expect(result.standardError.hasPrefix("taskctl: error: this command acts as a user: pass --as EMAIL or set TASKBASE_ACTOR"))
    }
}
