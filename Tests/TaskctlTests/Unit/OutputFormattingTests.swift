import CSVImport
import CommandLineToolkit
import Foundation
import SafeText
import TaskCore
import TaskbaseExport
import TaskbaseWire
import Testing
@testable import taskctl

@Suite("Formatting for people and scripts")
struct OutputFormattingTests {
    let directory = UserDirectory(members: Samples.members)

    /// The top-level keys of one JSON object.
    static func keys(ofJSON text: String) throws -> Set<String> {
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
        return Set((object as? [String: Any] ?? [:]).keys)
    }

    @Test("a task document has every documented field, absent values as null")
    func taskDocument() throws {
        let text = try JSONOutput.encode(TaskDocument(Samples.task(7), users: directory, today: Samples.today))
        #expect(
            try Self.keys(ofJSON: text) == [
                "id", "key", "team", "team_id", "number", "title", "notes", "status", "priority", "due_date", "overdue", "assignee",
                "category", "external_id", "version", "created_at", "created_by", "updated_at", "updated_by", "assignee_id",
                "created_by_id", "updated_by_id",
            ])
        #expect(text.contains(#""category" : null"#))
        #expect(text.contains(#""created_by" : "ann@example.com""#))
        #expect(text.contains(#""created_at" : "2026-11-30T"#))
    }

    @Test("the task table shows the view model: Uncategorized, Unassigned, overdue")
    func taskTable() {
        let tasks = [
            Samples.task(1, due: CalendarDate(year: 2026, month: 11, day: 1), assignee: Samples.bob.id),
            Samples.task(2, title: "Write docs", category: "Docs"),
        ]
        let items = tasks.map { TaskListItem($0, users: directory, today: Samples.today) }
        #expect(
            TaskOutput.list.renderTable(items) == """
                KEY     STATUS  PRIORITY  DUE                   ASSIGNEE         CATEGORY       TITLE
                CORE-1  open    high      2026-11-01 (overdue)  bob@example.com  Uncategorized  Fix login
                CORE-2  open    high                            Unassigned       Docs           Write docs

                """)
    }

    @Test("list CSV headers are the JSON field names and empty values stay empty")
    func taskCSV() {
        let item = TaskListItem(Samples.task(3, title: "Quote \"this\", please"), users: directory, today: Samples.today)
        #expect(
            TaskOutput.list.renderCSV([item]) == """
                key,title,status,priority,due_date,overdue,assignee,category,external_id,version\r
                CORE-3,"Quote ""this"", please",open,high,,false,,,,2\r

                """)
    }

    @Test("user and member lists")
    func userLists() {
        #expect(
            UserOutput.list.renderTable([Samples.ann, Samples.bob]) == """
                EMAIL            NAME     STATUS    ID
                ann@example.com  Ann Lee  enabled    1
                bob@example.com  Bob      disabled   2

                """)
        #expect(
            TeamOutput.members.renderCSV(Samples.members).hasPrefix(
                "user_id,email,display_name,role,disabled\r\n1,ann@example.com,Ann Lee,owner,false\r\n"))
    }

    @Test("a detail block aligns labels and indents the lines of notes")
    func detail() {
        let item = TaskListItem(Samples.task(4, notes: "first\nsecond"), users: directory, today: Samples.today)
        let text = TaskOutput.detail(item)
        #expect(text.hasPrefix("CORE-4  Fix login\n  status       open\n"))
        #expect(text.hasSuffix("  notes        first\n               second\n"))
        #expect(text.contains("  category     Uncategorized\n"))
    }

    @Test("control characters in titles cannot drive the terminal")
    func controlCharacters() {
        #expect(TerminalText.clean("a\u{1B}[31mb\tc") == "a\\x1B[31mb c")
    }

    @Test("history names the assignee by email and summarises the changes on one line")
    func history() throws {
        let entry = TaskHistoryEntry(
            taskID: TaskID(1), version: 2, actorID: Samples.bob.id, at: Samples.created, kind: .updated,
            changes: [FieldChange(field: .status, old: "open", new: "done"), FieldChange(field: .assignee, old: nil, new: "1")])
        let document = HistoryDocument(entry, users: directory)
        #expect(document.actor == "bob@example.com")
        #expect(HistoryOutput.summary(of: document.changes) == "status: open → done; assignee: - → ann@example.com")
        #expect(HistoryDocument.userIDs(in: entry) == [Samples.bob.id, Samples.ann.id])
        #expect(HistoryOutput.renderCSV([document]).hasSuffix("assignee,,ann@example.com\r\n"))
        let json = try JSONOutput.encode([document])
        #expect(json.contains(#""old" : null"#))
    }

    @Test("the summary shows counts by status, category and assignee")
    func summary() throws {
        let tasks = [Samples.task(1, due: CalendarDate(year: 2026, month: 1, day: 1)), Samples.task(2, status: .done, category: "Docs")]
        let summary = TeamSummary(team: Samples.team, counts: TaskCounts(tallying: tasks, today: Samples.today), members: Samples.members)
        let text = SummaryOutput.render(summary, role: .owner)
        #expect(text.contains("  tasks      2 (open 1, in_progress 0, done 1)\n  overdue    1\n"))
        #expect(text.contains("Uncategorized      1\n"))
        let json = try JSONOutput.encode(SummaryDocument(summary, role: .owner))
        #expect(try Self.keys(ofJSON: json) == ["team", "total", "by_status", "by_category", "overdue", "open_by_assignee"])
        #expect(json.contains(#""in_progress" : 0"#))
    }

    @Test("a watched change prints as one line, or one compact JSON line")
    func change() throws {
        let change = TaskChange(
            kind: .updated, key: try TaskKey(parsing: "CORE-7"), taskID: TaskID(9), version: 3, actorID: Samples.ann.id, at: Samples.created,
            sequence: 12)
        let document = ChangeDocument(change, actor: "ann@example.com", title: "Fix\nlogin")
        #expect(ChangeOutput.line(document) == "\(Timestamp.iso(Samples.created))  updated  CORE-7  v3  ann@example.com  Fix login\n")
        let line = try ChangeOutput.jsonLine(document, encoder: ChangeOutput.makeLineEncoder())
        #expect(line.filter { $0 == "\n" }.count == 1)
        #expect(try Self.keys(ofJSON: line) == ["sequence", "kind", "key", "task_id", "version", "actor", "actor_id", "at", "title"])
    }

    @Test("the export header maps every importer field and nothing else")
    func exportHeaderMatchesImporter() throws {
        let mapping = try HeaderMapping(header: TaskExport.csvHeader)
        #expect(Set(mapping.columns.keys) == Set(ImportField.allCases))
        #expect(mapping.unmappedColumns.isEmpty)
    }

    @Test("an export row carries the key as external id when there is none, the assignee as an email")
    func exportRow() {
        let row = TaskExport.csvRow(Samples.task(7, assignee: Samples.ann.id), users: directory)
        #expect(row == ["CORE-7", "Fix login", nil, "open", "high", nil, "ann@example.com", nil])
        #expect(TaskExport.csvRow(Samples.task(8, externalID: "JIRA-1"), users: directory)[0] == "JIRA-1")
    }
}
