import Foundation
import TaskCore
import TaskbaseWire

/// A task with what displaying it needs: its row view model and its JSON document.
struct TaskListItem {
    /// The display form ("Uncategorized", "Unassigned", overdue).
    var row: TaskRow
    /// The machine form.
    var document: TaskDocument

    /// Both forms of `task`.
    init(_ task: TaskItem, users directory: UserDirectory, today: CalendarDate) {
        row = TaskRow(task, members: directory.users, today: today)
        document = TaskDocument(task, users: directory, today: today)
    }
}

/// How tasks print.
enum TaskOutput {
    /// `task list`: the table shows the view model, the CSV the document's fields.
    static let list = ListOutput<TaskListItem>(
        table: [
            .init("KEY") { $0.row.key },
            .init("STATUS") { $0.row.status },
            .init("PRIORITY") { $0.row.priority },
            .init("DUE") { due($0.row) },
            .init("ASSIGNEE", maxWidth: 32) { $0.row.assignee },
            .init("CATEGORY", maxWidth: 24) { $0.row.category },
            .init("TITLE", maxWidth: 60) { $0.row.title },
        ],
        csv: [
            .init("key") { $0.document.key },
            .init("title") { $0.document.title },
            .init("status") { $0.document.status },
            .init("priority") { $0.document.priority },
            .init("due_date") { $0.document.dueDate.value },
            .init("overdue") { String($0.document.overdue) },
            .init("assignee") { $0.document.assignee.value },
            .init("category") { $0.document.category.value },
            .init("external_id") { $0.document.externalID.value },
            .init("version") { String($0.document.version) },
        ])

    /// `task show`: every field, labelled.
    static func detail(_ item: TaskListItem) -> String {
        let row = item.row, document = item.document
        var block = DetailBlock(heading: "\(row.key)  \(row.title)")
        block.add("status", row.status)
        block.add("priority", row.priority)
        block.add("due", row.due.isEmpty ? "-" : due(row))
        block.add("assignee", row.assignee)
        block.add("category", row.category)
        block.add("external id", document.externalID.value ?? "-")
        block.add("version", String(row.version))
        block.add("created", "\(Timestamp.iso(document.createdAt)) by \(document.createdBy)")
        block.add("updated", "\(Timestamp.iso(document.updatedAt)) by \(document.updatedBy)")
        if !document.notes.isEmpty { block.add("notes", document.notes) }
        return block.render()
    }

    /// One line after a change: `CORE-7 done (version 3)`.
    static func line(_ task: TaskItem, _ what: String) -> String {
        "\(task.key) \(what) (version \(task.version))\n"
    }

    /// The due date, marked when overdue.
    static func due(_ row: TaskRow) -> String {
        row.isOverdue ? "\(row.due) (overdue)" : row.due
    }
}
