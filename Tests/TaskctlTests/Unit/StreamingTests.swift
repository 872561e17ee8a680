import CSVImport
import Foundation
import Synchronization
import TaskCore
import TaskStoreMemory
import TaskbaseExport
import Testing
@testable import taskctl

/// Export and watch over the memory store: the same code the program runs over Postgres.
@Suite("Export and watch over the memory store")
struct StreamingTests {
    let store = MemoryTaskStore()
    let service: TaskService
    let owner: UserRef
    let bob: UserRef

    init() async throws {
        service = TaskService(store: store)
        owner = .id(try await service.createUser(email: "owner@example.com", displayName: "Owner").id)
        bob = .email(try await service.createUser(email: "bob@example.com", displayName: "Bob").email)
        for key in ["CORE", "OPS"] {
            let team = try await service.createTeam(key: key, name: key, as: owner)
            try await service.setRole(.member, for: bob, in: team.key, as: owner)
        }
    }

    /// What exporting `team` writes.
    func export(_ team: String, as format: ExportFormat, pageSize: Int = 2) async throws -> String {
        var bytes: [UInt8] = []
        let export = TaskExport(service: service, team: try TeamKey(team), actor: owner, pageSize: pageSize)
        _ = try await export.write(as: format) { bytes.append(contentsOf: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Imports a CSV the way the importer maps it (its header mapping, then the import port).
    func importCSV(_ text: String, into team: String) async throws -> ImportSummary {
        let reader = CSVReader(source: MemoryByteSource(text))
        let mapping = try HeaderMapping(header: try #require(try reader.next()).fields)
        var drafts: [TaskImportDraft] = []
        while let record = try reader.next() {
            func field(_ field: ImportField) -> String? { mapping.value(of: field, in: record).flatMap { $0.isEmpty ? nil : $0 } }
            drafts.append(
                try TaskImportDraft(
                    TaskDraft(
                        title: field(.title) ?? "", notes: field(.notes) ?? "",
                        status: try TaskStatus(parsing: field(.status) ?? "open"), priority: try TaskPriority(parsing: field(.priority) ?? "none"),
                        dueDate: try field(.dueDate).map { try CalendarDate(iso: $0) }, assignee: field(.assignee).map(UserRef.init),
                        category: field(.category), externalID: field(.externalId))))
        }
        return try await service.importTasks(into: try TeamKey(team), policy: .update, drafts: drafts, as: owner)
    }

    @Test("export reads every page and writes the importer's CSV")
    func exportsEveryPage() async throws {
        for number in 1...5 {
            _ = try await service.createTask(
                in: try TeamKey("CORE"),
                try TaskDraft(
                    title: "Task \(number)", notes: number == 2 ? "two\nlines, \"quoted\"" : "", dueDate: number == 3 ? Samples.today : nil,
                    assignee: number == 4 ? bob : nil, category: number == 5 ? "Ops" : nil, externalID: number == 1 ? "JIRA-1" : nil), as: owner)
        }
        let csv = try await export("CORE", as: .csv)
        let lines = csv.components(separatedBy: "\r\n")
        #expect(lines[0] == "External ID,Title,Notes,Status,Priority,Due Date,Assignee,Category")
        #expect(lines[1] == "JIRA-1,Task 1,,open,none,,,")
        #expect(lines[3] == "CORE-3,Task 3,,open,none,2026-11-30,,")
        #expect(lines[4] == "CORE-4,Task 4,,open,none,,bob@example.com,")
        #expect(lines[5] == "CORE-5,Task 5,,open,none,,,Ops")
        #expect(lines.count == 7 && lines[6].isEmpty)
        let json = try await export("CORE", as: .json)
        let array = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        #expect(array.map { $0["key"] as? String } == (1...5).map { "CORE-\($0)" })
    }

    @Test("an empty team exports a header, or an empty array")
    func emptyExport() async throws {
        #expect(try await export("OPS", as: .csv) == "External ID,Title,Notes,Status,Priority,Due Date,Assignee,Category\r\n")
        #expect(try JSONSerialization.jsonObject(with: Data(try await export("OPS", as: .json).utf8)) as? [Any] != nil)
    }

    @Test("export, then import into another team, round-trips; importing again changes nothing")
    func roundTrip() async throws {
        _ = try await service.createTask(
            in: try TeamKey("CORE"),
            try TaskDraft(
                title: "Ship it", notes: "a, b\n\"c\"", status: .inProgress, priority: .urgent, dueDate: Samples.today,
                assignee: bob, category: "Release"), as: owner)
        _ = try await service.createTask(in: try TeamKey("CORE"), try TaskDraft(title: "Plain", externalID: "EXT-9"), as: owner)
        let exported = try await export("CORE", as: .csv)
        #expect(try await importCSV(exported, into: "OPS") == ImportSummary(inserted: 2))
        #expect(try await export("OPS", as: .csv) == exported)
        #expect(try await importCSV(exported, into: "OPS") == ImportSummary(unchanged: 2))
    }

    @Test("watch prints each change, and cancelling it ends normally with no listener left")
    func watch() async throws {
        let lines = LineCollector()
        let ready = AsyncStream<Void>.makeStream()
        let watch = ChangeWatch(service: service, team: try TeamKey("CORE"), actor: bob, json: false)
        let running = Task {
            try await watch.run(ready: { ready.continuation.yield() }, write: lines.append)
        }
        for await _ in ready.stream { break }
        let task = try await service.createTask(in: try TeamKey("CORE"), try TaskDraft(title: "Watched"), as: owner)
        try await lines.wait(for: 1)
        try await service.deleteTask(task.key, as: owner)
        try await lines.wait(for: 2)
        running.cancel()
        try await running.value
        let seen = lines.lines
        #expect(seen[0].hasSuffix("  created  CORE-1  v1  owner@example.com  Watched\n"))
        #expect(seen[1].hasSuffix("  deleted  CORE-1  v1  owner@example.com\n"))
        #expect(store.listenerCount == 0)
    }
}

/// Lines written by a watch, shared between the watching task and the test.
final class LineCollector: Sendable {
    private let collected = Mutex<[String]>([])

    /// Every line so far.
    var lines: [String] { collected.withLock { $0 } }

    /// Adds a line.
    @Sendable func append(_ line: String) {
        collected.withLock { $0.append(line) }
    }

    /// Returns once `count` lines have come.
    func wait(for count: Int) async throws {
        while collected.withLock({ $0.count }) < count { try await Task.sleep(for: .milliseconds(5)) }
    }
}
