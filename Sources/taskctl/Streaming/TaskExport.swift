import CommandLineToolkit
import TaskCore
import TaskbaseWire

/// The formats `export` writes.
enum ExportFormat: String, CaseIterable, Sendable {
    /// The importer's CSV input format.
    case csv
    /// A JSON array of task documents.
    case json
}

/// Every task of a team, read page by page and written as it arrives, so memory stays flat
/// whatever the team's size. The CSV is exactly what `taskimport` reads; a task without an
/// external id exports its key (`CORE-7`) as one, so importing the file into another team and
/// re-importing it there match task for task.
struct TaskExport: Sendable {
    /// The CSV header: the importer's canonical column names.
    static let csvHeader = ["External ID", "Title", "Notes", "Status", "Priority", "Due Date", "Assignee", "Category"]

    /// The service to read through.
    var service: TaskService
    /// The team to export.
    var team: TeamKey
    /// Who reads (any member, viewers included).
    var actor: UserRef
    /// Tasks per page read.
    var pageSize = TaskQuery.limitRange.upperBound
    /// How CSV is written (escaped for a terminal, formulas defused).
    var csvConfiguration = CSVWriter.Configuration()

    /// Writes every task to `sink` in `format` and returns how many were written.
    func write(as format: ExportFormat, to sink: @escaping (UnsafeRawBufferPointer) throws -> Void) async throws -> Int {
        var directory = try await UserDirectory.of(team, service: service, as: actor)
        let today = service.clock.today()
        let csv = format == .csv ? CSVWriter(configuration: csvConfiguration, sink: sink) : nil
        let json = format == .json ? JSONArrayWriter(sink: sink) : nil
        try csv?.writeRow(Self.csvHeader)
        var query = TaskQuery(limit: pageSize)
        var count = 0
        repeat {
            try Task.checkCancellation()
            let page = try await service.listTasks(in: team, query, as: actor)
            try await directory.resolve(usersOf: page.tasks, using: service)
            for task in page.tasks {
                try csv?.writeRow(Self.csvRow(task, users: directory))
                try json?.append(TaskDocument(task, users: directory, today: today))
            }
            count += page.tasks.count
            query.after = page.nextCursor
        } while query.after != nil
        try csv?.flush()
        try json?.finish()
        return count
    }

    /// The importer's row of `task`: empty fields for absent values, the assignee as an email.
    static func csvRow(_ task: TaskItem, users directory: UserDirectory) -> [String?] {
        [
            task.externalID ?? task.key.description,
            task.title,
            task.notes.isEmpty ? nil : task.notes,
            task.status.rawValue,
            task.priority.rawValue,
            task.dueDate?.description,
            task.assigneeID.map(directory.email),
            task.category,
        ]
    }
}
