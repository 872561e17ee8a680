import CommandLineToolkit
import TaskCore
import TaskbaseWire

/// The formats an export writes.
public enum ExportFormat: String, CaseIterable, Sendable {
    /// The importer's CSV input format.
    case csv
    /// A JSON array of task documents.
    case json
}

/// Every task of a team, read page by page and written as it arrives, so memory stays flat
/// whatever the team's size. The CSV is exactly what `taskimport` reads; a task without an
/// external id exports its key (`CORE-7`) as one, so importing the file into another team and
/// re-importing it there match task for task.
public struct TaskExport: Sendable {
    /// The CSV header: the importer's canonical column names.
    public static let csvHeader = ["External ID", "Title", "Notes", "Status", "Priority", "Due Date", "Assignee", "Category"]

    /// The service to read through.
    public var service: TaskService
    /// The team to export.
    public var team: TeamKey
    /// Who reads (any member, viewers included).
    public var actor: UserRef
    /// Tasks per page read.
    public var pageSize = TaskQuery.limitRange.upperBound
    /// How CSV is written (escaped for a terminal, formulas defused).
    public var csvConfiguration = CSVWriter.Configuration()

    /// An export of `team`'s tasks as `actor` may read them, `pageSize` tasks per read.
    public init(service: TaskService, team: TeamKey, actor: UserRef, pageSize: Int = TaskQuery.limitRange.upperBound) {
        self.service = service
        self.team = team
        self.actor = actor
        self.pageSize = pageSize
    }

    /// Writes every task to `sink` in `format` and returns how many were written. With
    /// `afterPage`, what a page wrote reaches the sink before it is called, once per page with
    /// the number of tasks written so far: a sink that cannot block (an HTTP response) waits
    /// there for its reader to catch up; a program draws its progress.
    public func write(
        as format: ExportFormat, to sink: @escaping (UnsafeRawBufferPointer) throws -> Void,
        afterPage: ((Int) async throws -> Void)? = nil
    ) async throws -> Int {
        var directory = try await UserDirectory.of(team, service: service, as: actor)
        let today = service.clock.today()
        let csv = format == .csv ? CSVWriter(configuration: csvConfiguration, sink: sink) : nil
        let json = format == .json ? JSONArrayWriter(sink: sink) : nil
        try csv?.writeRow(Self.csvHeader)
        var count = 0
        var page: TaskPage? = try await service.listTasks(in: team, TaskQuery(limit: pageSize), as: actor)
        while let current = page {
            try Task.checkCancellation()
            // The next page is read while this one is written: the database's time and the
            // writing overlap instead of taking turns (one page ahead, so memory stays flat).
            // Leaving the loop by an error cancels the read and waits for it.
            async let following = self.page(after: current)
            try await directory.resolve(usersOf: current.tasks, using: service, as: actor)
            for task in current.tasks {
                try csv?.writeRow(Self.csvRow(task, users: directory))
                try json?.append(TaskDocument(task, users: directory, today: today))
            }
            count += current.tasks.count
            if let afterPage {
                try csv?.flush()
                try json?.flush()
                try await afterPage(count)
            }
            page = try await following
        }
        try csv?.flush()
        try json?.finish()
        return count
    }

    /// The page after `page`, nil after the last.
    private func page(after page: TaskPage) async throws -> TaskPage? {
        guard let cursor = page.nextCursor else { return nil }
        var query = TaskQuery(limit: pageSize)
        query.after = cursor
        return try await service.listTasks(in: team, query, as: actor)
    }

    /// The importer's row of `task`: empty fields for absent values, the assignee as an email.
    public static func csvRow(_ task: TaskItem, users directory: UserDirectory) -> [String?] {
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
