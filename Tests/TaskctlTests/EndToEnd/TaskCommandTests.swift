import TaskbaseCommandLine
import Foundation
import Testing
@testable import taskctl

@Suite("taskctl task, as a process against PostgreSQL")
struct TaskCommandTests {
    @Test("task add with every field, then show as JSON and as text")
    func addAndShow() async throws {
        let fixture = try await Fixture.make()
        let key = try await fixture.addTask(
            "  Fix the login page ",
            [
                "--notes", "first line\nsecond", "--due", "2030-01-15", "--priority", "high", "--status", "in_progress",
                "--category", "Backend", "--assignee", fixture.member, "--external-id", "JIRA-7",
            ])
        #expect(key == "\(fixture.team)-1")
        let task = try await fixture.show(key)
        #expect(task["key"] as? String == key)
        #expect(task["team"] as? String == fixture.team)
        #expect(task["number"] as? Int == 1)
        #expect(task["title"] as? String == "Fix the login page")
        #expect(task["notes"] as? String == "first line\nsecond")
        #expect(task["status"] as? String == "in_progress")
        #expect(task["priority"] as? String == "high")
        #expect(task["due_date"] as? String == "2030-01-15")
        #expect(task["overdue"] as? Bool == false)
        #expect(task["assignee"] as? String == fixture.member)
        #expect(task["category"] as? String == "Backend")
        #expect(task["external_id"] as? String == "JIRA-7")
        #expect(task["version"] as? Int == 1)
        #expect(task["created_by"] as? String == fixture.member)
        #expect(task["updated_by"] as? String == fixture.member)

        let bare = try await fixture.addTask("Bare")
        let text = try await fixture.expectSuccess(["task", "show", bare], as: fixture.viewer).standardOutput
        #expect(text.hasPrefix("\(bare)  Bare\n"))
        #expect(text.contains("  category     Uncategorized\n"))
        #expect(text.contains("  assignee     Unassigned\n"))
        let json = try await fixture.show(bare)
        #expect(json["category"] is NSNull && json["due_date"] is NSNull && json["assignee"] is NSNull)

        let relative = try await fixture.expectSuccess(["--json", "task", "add", "-t", fixture.team, "Soon", "--due", "+3d"], as: fixture.member)
            .object()
        #expect(relative["due_date"] as? String == ServiceConnection.localClock.today().adding(days: 3).description)
    }

    @Test("task add refuses a title over 500 code points with a validation error, exit 6, whatever its character count")
    func titleLongInCodePoints() async throws {
        let fixture = try await Fixture.make()
        let hindi = String(repeating: "कि", count: 225) + String(repeating: "क", count: 70)
        for title in [hindi, String(repeating: "🇩🇪", count: 251), String(repeating: "q\u{307}", count: 300)] {
            let refused = try await fixture.expectFailure(6, ["task", "add", "--team", fixture.team, title], as: fixture.member)
            #expect(refused.standardError.contains("a title has at most 500 characters (Unicode code points)"), "\(refused)")
            #expect(!refused.standardError.contains("tasks_title_length"))
        }
        let fits = try await fixture.addTask(String(repeating: "🇩🇪", count: 250))
        #expect(try await fixture.show(fits)["title"] as? String == String(repeating: "🇩🇪", count: 250))
    }

    @Test("task update, done, reopen, assign and delete; history records each step")
    func edits() async throws {
        let fixture = try await Fixture.make()
        let key = try await fixture.addTask("Draft", ["--due", "tomorrow", "--category", "Docs"])
        let updated = try await fixture.expectSuccess(
            ["task", "update", key, "--title", "Final", "--priority", "urgent", "--due", "none", "--category", "", "--if-version", "1"],
            as: fixture.member)
        #expect(updated.standardOutput == "\(key) updated (version 2)\n")
        var task = try await fixture.show(key)
        #expect(task["title"] as? String == "Final")
        #expect(task["due_date"] is NSNull && task["category"] is NSNull)

        #expect(
            try await fixture.expectSuccess(["task", "assign", key, fixture.admin], as: fixture.member).standardOutput
                == "\(key) assigned to \(fixture.admin) (version 3)\n")
        #expect(
            try await fixture.expectSuccess(["task", "done", key, "--if-version", "3"], as: fixture.member).standardOutput
                == "\(key) done (version 4)\n")
        let reopened = try await fixture.expectSuccess(["--json", "task", "reopen", key], as: fixture.admin).object()
        #expect(reopened["status"] as? String == "open" && reopened["version"] as? Int == 5)
        try await fixture.expectSuccess(["task", "assign", key, "none"], as: fixture.member)
        task = try await fixture.show(key)
        #expect(task["assignee"] is NSNull)

        let history = try await fixture.expectSuccess(["--json", "task", "history", key], as: fixture.viewer).objects()
        #expect(history.map { $0["version"] as? Int } == [1, 2, 3, 4, 5, 6])
        #expect(history.map { $0["kind"] as? String } == ["created", "updated", "updated", "updated", "updated", "updated"])
        #expect(history.allSatisfy { Set($0.keys) == ["task_id", "version", "kind", "at", "actor", "actor_id", "changes"] })
        let assigned = try #require(history[2]["changes"] as? [[String: Any]])
        #expect(assigned.first?["field"] as? String == "assignee")
        #expect(assigned.first?["new"] as? String == fixture.admin)
        #expect(assigned.first?["old"] is NSNull)
        let table = try await fixture.expectSuccess(["task", "history", key], as: fixture.viewer).standardOutput
        #expect(table.contains("status: open → done"))
        let csv = try await fixture.expectSuccess(["task", "history", key, "--csv"], as: fixture.viewer).standardOutput
        #expect(csv.hasPrefix("version,at,actor,kind,field,old,new\r\n"))

        #expect(try await fixture.expectSuccess(["task", "delete", key], as: fixture.member).standardOutput == "deleted \(key)\n")
        try await fixture.expectFailure(1, ["task", "show", key], as: fixture.member)
    }

    @Test("task history of a deleted task shows its kept history, ending with who deleted it, to the team, and not found to an outsider")
    func historyOfDeletedTask() async throws {
        let fixture = try await Fixture.make()
        let key = try await fixture.addTask("Doomed")
        try await fixture.expectSuccess(["task", "done", key], as: fixture.member)
        try await fixture.expectSuccess(["task", "delete", key], as: fixture.admin)
        let history = try await fixture.expectSuccess(["--json", "task", "history", key], as: fixture.viewer).objects()
        #expect(history.map { $0["kind"] as? String } == ["created", "updated", "deleted"])
        #expect(history.last?["actor"] as? String == fixture.admin && history.last?["version"] as? Int == 2)
        #expect((history.last?["changes"] as? [Any])?.isEmpty == true && history.last?["at"] is String)
        let table = try await fixture.expectSuccess(["task", "history", key], as: fixture.viewer).standardOutput
        #expect(table.contains("status: open → done"))
        let lastRow = try #require(table.split(separator: "\n").last)
        #expect(lastRow.contains(fixture.admin) && lastRow.contains("deleted"))
        let outsider = try await fixture.expectFailure(1, ["task", "history", key], as: fixture.outsider)
        #expect(outsider.standardError.contains("not found"))
    }

    @Test("task list: every filter, sorting, and paging with the cursor")
    func list() async throws {
        let fixture = try await Fixture.make()
        let a = try await fixture.addTask("Alpha login", ["--priority", "low", "--due=-1d", "--assignee", fixture.member, "--category", "Web"])
        let b = try await fixture.addTask("Beta", ["--priority", "urgent", "--due", "+5d", "--notes", "about LOGIN"])
        let c = try await fixture.addTask("Gamma", ["--priority", "high", "--due", "+30d", "--category", "web"])
        try await fixture.expectSuccess(["task", "done", c], as: fixture.member)

        func keys(_ options: [String]) async throws -> [String] {
            let page = try await fixture.expectSuccess(["--json", "task", "list", "--team", fixture.team] + options, as: fixture.viewer).object()
            return try #require(page["tasks"] as? [[String: Any]]).compactMap { $0["key"] as? String }
        }
        #expect(try await keys([]) == [a, b, c])
        #expect(try await keys(["--status", "open"]) == [a, b])
        #expect(try await keys(["--status", "open", "--status", "done"]) == [a, b, c])
        #expect(try await keys(["--assignee", fixture.member]) == [a])
        #expect(try await keys(["--unassigned"]) == [b, c])
        #expect(try await keys(["--category", "WEB"]) == [a, c])
        #expect(try await keys(["--uncategorized"]) == [b])
        #expect(try await keys(["--due-before", "+6d"]) == [a, b])
        #expect(try await keys(["--due-after", "today"]) == [b, c])
        #expect(try await keys(["--overdue"]) == [a])
        #expect(try await keys(["--text", "login"]) == [a, b])
        #expect(try await keys(["--sort", "priority", "--desc"]) == [b, c, a])
        #expect(try await keys(["--sort", "due"]) == [a, b, c])

        let first = try await fixture.expectSuccess(["--json", "task", "list", "-t", fixture.team, "--limit", "2"], as: fixture.viewer).object()
        #expect(try #require(first["tasks"] as? [[String: Any]]).count == 2)
        let cursor = try #require(first["next_cursor"] as? String)
        let second = try await fixture.expectSuccess(
            ["--json", "task", "list", "-t", fixture.team, "--limit", "2", "--after", cursor], as: fixture.viewer
        ).object()
        #expect(try #require(second["tasks"] as? [[String: Any]]).compactMap { $0["key"] as? String } == [c])
        #expect(second["next_cursor"] is NSNull)

        let paged = try await fixture.run(["task", "list", "-t", fixture.team, "--limit", "2"], as: fixture.viewer)
        #expect(paged.exitCode == 0)
        #expect(paged.standardError == "more tasks: repeat with --after \(cursor)\n")
        let table = paged.standardOutput.split(separator: "\n")
        #expect(table.first?.hasPrefix("KEY ") == true && table.count == 3)
        #expect(table[1].contains("(overdue)") && table[2].contains("Uncategorized"))

        let csv = try await fixture.expectSuccess(["task", "list", "-t", fixture.team, "--csv"], as: fixture.viewer).standardOutput
        #expect(csv.hasPrefix("key,title,status,priority,due_date,overdue,assignee,category,external_id,version\r\n\(a),Alpha login,open,low,"))

        try await fixture.expectFailure(6, ["task", "list", "-t", fixture.team, "--limit", "0"], as: fixture.viewer)
        try await fixture.expectFailure(6, ["task", "list", "-t", fixture.team, "--after", cursor, "--sort", "due"], as: fixture.viewer)
        try await fixture.expectFailure(1, ["task", "list", "-t", fixture.team], as: fixture.outsider)
    }

    @Test("a viewer reads but is refused a write with exit 4, and nothing changes")
    func viewerRefused() async throws {
        let fixture = try await Fixture.make()
        let key = try await fixture.addTask("Guarded")
        let refused = try await fixture.expectFailure(4, ["task", "update", key, "--title", "Hacked"], as: fixture.viewer)
        #expect(refused.standardError.contains(fixture.viewer) && refused.standardError.contains("viewer"))
        try await fixture.expectFailure(4, ["task", "add", "-t", fixture.team, "New"], as: fixture.viewer)
        try await fixture.expectFailure(4, ["task", "delete", key], as: fixture.viewer)
        let task = try await fixture.show(key)
        #expect(task["title"] as? String == "Guarded" && task["version"] as? Int == 1)
    }

    @Test("a stale --if-version is refused with exit 5 and nothing is overwritten")
    func staleVersion() async throws {
        let fixture = try await Fixture.make()
        let key = try await fixture.addTask("Original")
        try await fixture.expectSuccess(["task", "update", key, "--title", "Changed by admin", "--if-version", "1"], as: fixture.admin)
        let refused = try await fixture.expectFailure(5, ["task", "update", key, "--title", "Stale edit", "--if-version", "1"], as: fixture.member)
        #expect(
            refused.standardError
                == "taskctl: error: task \(key) is now at version 2, not the version the change was based on; nothing was changed: read it again and retry\n"
        )
        try await fixture.expectFailure(5, ["task", "done", key, "--if-version", "1"], as: fixture.member)
        try await fixture.expectFailure(5, ["task", "delete", key, "--if-version", "1"], as: fixture.member)
        let task = try await fixture.show(key)
        #expect(task["title"] as? String == "Changed by admin")
        #expect(task["status"] as? String == "open")
        #expect(task["version"] as? Int == 2)
    }

    @Test("the history of a task created with an assignee names that assignee")
    func assigneeAtCreation() async throws {
        let fixture = try await Fixture.make()
        let key = try await fixture.addTask("Assigned at birth", ["--assignee", fixture.admin])
        let history = try await fixture.expectSuccess(["--json", "task", "history", key], as: fixture.viewer).objects()
        let created = try #require(history.first?["changes"] as? [[String: Any]])
        #expect(created.first { $0["field"] as? String == "assignee" }?["new"] as? String == fixture.admin)
    }
}
