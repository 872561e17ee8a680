import CommandLineToolkit
import TaskCore
import Testing
@testable import taskctl

@Suite("The command tree and what it reads")
struct CommandLineTests {
    /// The values `arguments` give the command they select.
    static func values(_ arguments: [String]) throws -> ParsedValues {
        guard case .run(_, let values) = try CommandParser(root: Taskctl.root).parse(arguments) else {
            throw CommandFailure("\(arguments) did not select a command")
        }
        return values
    }

    @Test("the declarations are sound")
    func declarations() {
        #expect(Taskctl.root.declarationProblems() == [])
    }

    @Test(
        "every command of the issue exists",
        arguments: [
            "user add", "user list", "user disable", "user enable",
            "team create", "team list", "team show", "team add-member", "team set-role", "team remove-member", "team members", "team rename",
            "team delete",
            "task add", "task list", "task show", "task update", "task done", "task reopen", "task assign", "task delete", "task history",
            "watch", "export",
        ])
    func commandExists(path: String) {
        let chain = Taskctl.root.resolve(path.split(separator: " ").map(String.init))
        #expect(chain?.last?.action != nil)
    }

    @Test("every filter of TaskQuery has an option, and they build the query")
    func listQuery() throws {
        let today = CalendarDate(year: 2026, month: 11, day: 30)!
        let values = try Self.values([
            "task", "list", "--team", "CORE", "--status", "open", "--status", "in_progress", "--assignee", "bob@example.com",
            "--uncategorized", "--due-before", "+7d", "--due-after", "yesterday", "--overdue", "--text", "login",
            "--sort", "due", "--desc", "--limit", "10",
        ])
        let query = try TaskListCommand.query(from: values, today: today)
        #expect(
            query
                == TaskQuery(
                    statuses: [.open, .inProgress], assignee: .user(.email("bob@example.com")), category: .uncategorized,
                    dueBefore: CalendarDate(year: 2026, month: 12, day: 7), dueAfter: CalendarDate(year: 2026, month: 11, day: 29),
                    overdueOnly: true, text: "login", sort: .due, descending: true, limit: 10))
    }

    @Test("contradictory filters are usage errors")
    func contradictoryFilters() throws {
        let values = try Self.values(["task", "list", "-t", "CORE", "--assignee", "a@example.com", "--unassigned"])
        #expect(throws: UsageError.self) { try TaskListCommand.query(from: values, today: CalendarDate(year: 2026, month: 1, day: 1)!) }
    }

    @Test("unreadable keys and cursors are usage errors that say what was expected")
    func unreadableWords() throws {
        #expect(throws: UsageError("invalid task key 'CORE42': expected a key like CORE-42")) {
            try Self.values(["task", "show", "CORE42"]).taskKey()
        }
        #expect(throws: UsageError("invalid team key 'c!': expected 2 to 10 letters and digits starting with a letter, like CORE")) {
            try Self.values(["task", "list", "--team", "c!"]).teamKey()
        }
        #expect(throws: UsageError.self) { try Self.values(["task", "list", "--team", "CORE", "--after", "nonsense"]).cursor("after") }
    }

    @Test("none clears an optional value; anything else sets it")
    func clearable() throws {
        #expect(try Self.values(["task", "update", "CORE-1", "--due", "None"]).clearable("due") == .set(nil))
        #expect(try Self.values(["task", "update", "CORE-1", "--due", "+1d"]).clearable("due") == .set("+1d"))
        #expect(try Self.values(["task", "update", "CORE-1", "--title", "x"]).clearable("due") == .unchanged)
    }
}
