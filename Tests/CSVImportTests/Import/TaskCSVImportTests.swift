import CSVImport
import Synchronization
import TaskCore
import TaskStoreMemory
import Testing

/// The import pipeline against the memory store: TaskCore judges every value, the pipeline says
/// where.
@Suite("Task CSV import")
struct TaskCSVImportTests {
    struct Team {
        let service = TaskService(store: MemoryTaskStore())
        let key: TeamKey
        let owner = UserRef.email("owner@example.com")

        init() async throws {
            _ = try await service.createUser(email: "owner@example.com", displayName: "Owner")
            _ = try await service.createUser(email: "ann@example.com", displayName: "Ann")
            _ = try await service.createUser(email: "out@example.com", displayName: "Outsider")
            key = try await service.createTeam(key: "CORE", name: "Core", as: owner).key
            try await service.setRole(.member, for: .email("ann@example.com"), in: key, as: owner)
            // The outsider shares another team with the owner: the importer sees them.
            let elsewhere = try await service.createTeam(key: "OPS", name: "Ops", as: owner).key
            try await service.setRole(.member, for: .email("out@example.com"), in: elsewhere, as: owner)
        }

        /// Imports `csv`, collecting the rejections.
        func run(
            _ csv: String, maxErrors: Int = 100, batchSize: Int = 2, dryRun: Bool = false
        ) async throws -> (report: ImportReport, rejections: [RowRejection]) {
            let file = try TaskCSVImport(reader: CSVReader(source: MemoryByteSource(csv)))
            let collected = Mutex<[RowRejection]>([])
            let report = try await file.run(
                service: service,
                settings: .init(team: key, actor: owner, dryRun: dryRun, maxRejectedRows: maxErrors, batchSize: batchSize),
                onRejection: { rejection in collected.withLock { $0.append(rejection) } })
            return (report, collected.withLock { $0 })
        }

        func tasks() async throws -> [TaskItem] {
            try await service.listTasks(in: key, TaskQuery(limit: 100), as: owner).tasks
        }
    }

    @Test("other tools' spellings of status and priority become Taskbase's values")
    func spellings() async throws {
        let team = try await Team()
        let csv = "Title,Status,Priority\nA,In Progress,Highest\nB,to-do,normal\nC,Completed,P1\nD,,\nE,DONE,Low\n"
        let (report, rejections) = try await team.run(csv)
        #expect(rejections.isEmpty)
        #expect(report.summary.inserted == 5)
        let tasks = try await team.tasks()
        #expect(tasks.map(\.status) == [.inProgress, .open, .done, .open, .done])
        #expect(tasks.map(\.priority) == [.urgent, .medium, .high, .none, .low])
    }

    @Test("each bad cell is refused with its line, column and TaskCore's reason, and the good rows land")
    func rejectionsNameTheirPlace() async throws {
        let team = try await Team()
        let csv = """
            Title,Status,Due,Assignee
            Good,open,2026-03-10,ann@example.com
            "Two
            lines",sleeping,,
            Bad date,open,31.02.2026,
            Outsider,open,,out@example.com
            No one,open,,ghost@example.com
            Not an email,open,,ann
            ,open,,

            """
        let (report, rejections) = try await team.run(csv)
        #expect(report.rowsRead == 7)
        #expect(report.rejected == 6)
        #expect(try await team.tasks().map(\.title) == ["Good"])
        #expect(rejections.map(\.line) == [3, 5, 6, 7, 8, 9])
        #expect(rejections.map(\.column) == [2, 3, 4, 4, 4, 1])
        #expect(rejections[0].description == "line 3, column 2 (Status): \"sleeping\" is not one of open, in_progress, done")
        #expect(rejections[1].reason == "2026-02-31 is not a real date")
        #expect(rejections[2].reason == "out@example.com is not a member of team CORE")
        #expect(rejections[3].reason == "ghost@example.com is not a member of team CORE")
        #expect(rejections[4].reason == "\"ann\" is not an email address")
        #expect(rejections[5].reason == "a title cannot be empty")
        #expect(rejections[0].fields == ["Two\nlines", "sleeping", "", ""])
    }

    @Test("a title over 500 code points is that row's rejection with its line, in a dry run too")
    func titleTooLongInCodePoints() async throws {
        let hindi = String(repeating: "कि", count: 225) + String(repeating: "क", count: 70)
        let csv = "Title,Notes\nShort,\n\(hindi),x\n\(String(repeating: "🇫🇷", count: 251)),y\n\(String(repeating: "q\u{307}", count: 300)),z\nLast,\n"
        for dryRun in [false, true] {
            let team = try await Team()
            let (report, rejections) = try await team.run(csv, maxErrors: 10, dryRun: dryRun)
            #expect(report.summary.inserted == 2)
            #expect(rejections.map(\.line) == [3, 4, 5])
            #expect(rejections.map(\.column) == [1, 1, 1])
            #expect(rejections[0].reason == "a title has at most 500 characters (Unicode code points), got 520")
        }
    }

    @Test("a repeated external id is refused with both lines; so is a repeated row without one")
    func duplicatesNameBothLines() async throws {
        let team = try await Team()
        let csv = "ID,Title\nA,First\nB,Second\nA,Again\n,Same\n,Same\n"
        let (report, rejections) = try await team.run(csv)
        #expect(report.summary.inserted == 3)
        #expect(
            rejections.map(\.description) == [
                "line 4, column 1 (ID): external id \"A\" is also on line 2; an external id names one task",
                "line 6, column 1 (ID): the same title, notes, due date and category as line 5, and no external id to tell them apart",
            ])
    }

    @Test("a row without an external id gets a stable one from its content, so re-importing it creates nothing")
    func derivedExternalIDs() async throws {
        let team = try await Team()
        let csv = "Title,Notes,Status\n  Water the plants ,Weekly,open\n"
        _ = try await team.run(csv)
        let first = try await team.tasks()
        #expect(first.count == 1)
        #expect(first[0].externalID?.hasPrefix("auto-") == true)
        #expect(first[0].externalID?.count == 37)

        // Surrounding spaces and the status are not part of the identity; a status change updates.
        let (report, _) = try await team.run("Title,Notes,Status\nWater the plants,Weekly,done\n")
        #expect(report.summary.inserted == 0)
        #expect(report.summary.updated == 1)
        #expect(try await team.tasks().map(\.status) == [.done])
    }

    @Test("one bad row more than --max-errors allows stops the import and nothing is written")
    func tooManyRejections() async throws {
        let team = try await Team()
        let csv = "Title,Due\nA,\nB,soon\nC,\nD,later\nE,\n"
        await #expect {
            try await team.run(csv, maxErrors: 1)
        } throws: { error in
            guard case .tooManyRejectedRows(let limit, let rejected, let rowsRead, let last) = error as? CSVImportFailure else { return false }
            return limit == 1 && rejected == 2 && rowsRead == 4 && last.line == 5
        }
        #expect(try await team.tasks().isEmpty)
    }

    @Test("the stop counts one row as a row: \"stopped after 1 row\"")
    func stopAfterOneRow() async throws {
        let team = try await Team()
        await #expect {
            try await team.run("Title,Due\nA,soon\n", maxErrors: 0)
        } throws: { error in
            guard let failure = error as? CSVImportFailure, case .tooManyRejectedRows(_, _, 1, _) = failure else { return false }
            return failure.description.contains("stopped after 1 row with 1 bad") && !failure.description.contains("1 rows")
        }
    }

    @Test("a header without a title column fails before any row is read")
    func missingTitle() {
        #expect(throws: CSVImportFailure.self) {
            try TaskCSVImport(reader: CSVReader(source: MemoryByteSource("Notes,Status\nx,open\n")))
        }
    }

    @Test("a dry run reports what would happen and writes nothing")
    func dryRun() async throws {
        let team = try await Team()
        let (report, _) = try await team.run("Title\nA\nB\nC\n", dryRun: true)
        #expect(report.summary.inserted == 3)
        #expect(report.dryRun)
        #expect(try await team.tasks().isEmpty)
    }
}
