import CommandLineToolkit
import TaskCore
import TaskbaseWire

/// `taskctl task ...`: tasks, acting as `--as EMAIL`.
enum TaskCommands {
    /// The `task` command group.
    static let command = Command(
        "task", abstract: "Create, list, show, edit, complete, assign and delete tasks; see their history.",
        discussion:
            "Viewers read; members and above write. Edits take --if-version N to refuse (exit 5) when someone changed the task since you read version N.",
        subcommands: [add, TaskListCommand.command, show, update, done, reopen, assign, delete, history])

    /// `task add`.
    static let add = Command(
        "add", abstract: "Create a task and print its key.",
        discussion: "Example: taskctl task add --team CORE \"Fix the login page\" --due +3d --priority high --assignee bob@example.com",
        positionals: [Positional("title", help: "The task's title.")],
        options: [
            SharedDeclarations.team,
            Option("notes", help: "Free text."),
            SharedDeclarations.due,
            SharedDeclarations.priority,
            Option("status", help: "The initial status (default open).", type: .choice(of: TaskStatus.self)),
            Option("category", help: "A free grouping; tasks without one show as Uncategorized."),
            Option("assignee", valueName: "EMAIL", help: "The member responsible."),
            Option("external-id", valueName: "ID", help: "The task's id in the system it comes from; unique in the team."),
        ],
        run: Invocation.action { invocation in
            let values = invocation.values
            let format = try invocation.format()
            let (team, actor) = (try values.teamKey(), try invocation.actor())
            let dueDate = try values.date("due", today: invocation.today)
            let service = try await invocation.openService()
            let draft = try TaskDraft(
                title: values.requiredString("title"), notes: values.string("notes") ?? "",
                status: values.value("status", as: TaskStatus.self) ?? .open,
                priority: values.value("priority", as: TaskPriority.self) ?? TaskPriority.none,
                dueDate: dueDate,
                assignee: values.string("assignee").map(UserRef.init),
                category: values.string("category"), externalID: values.string("external-id"))
            let task = try await service.createTask(in: team, draft, as: actor)
            try await printTask(task, to: invocation, format: format, service: service, actor: actor) { "\($0.key)\n" }
        })

    /// `task show`.
    static let show = Command(
        "show", abstract: "Show every field of a task.",
        positionals: [SharedDeclarations.taskKey],
        run: Invocation.action { invocation in
            let format = try invocation.format()
            let (key, actor) = (try invocation.values.taskKey(), try invocation.actor())
            let service = try await invocation.openService()
            let task = try await service.task(key, as: actor)
            try await printTask(task, to: invocation, format: format, service: service, actor: actor, detailed: true) { _ in "" }
        })

    /// `task update`.
    static let update = Command(
        "update", abstract: "Change fields of a task.",
        discussion: """
            Only the fields given change. --due none and --assignee none clear them; an empty \
            --category, --external-id or --notes clears it. Example: taskctl task update CORE-7 \
            --priority urgent --due tomorrow --if-version 3
            """,
        positionals: [SharedDeclarations.taskKey],
        options: [
            Option("title", help: "The new title."),
            Option("notes", help: "The new notes."),
            Option("status", help: "The new status.", type: .choice(of: TaskStatus.self)),
            SharedDeclarations.priority,
            SharedDeclarations.due,
            Option("assignee", valueName: "EMAIL", help: "The new assignee, or none."),
            Option("category", help: "The new category; empty for none."),
            Option("external-id", valueName: "ID", help: "The new external id; empty for none."),
            SharedDeclarations.ifVersion,
        ],
        run: Invocation.action { invocation in
            let values = invocation.values
            let format = try invocation.format()
            let (key, actor) = (try values.taskKey(), try invocation.actor())
            let fields = ["title", "notes", "status", "priority", "due", "assignee", "category", "external-id"]
            guard fields.contains(where: { values.string($0) != nil }) else {
                throw UsageError("nothing to change: give at least one of " + fields.map { "--\($0)" }.joined(separator: ", "))
            }
            let due: Patch<CalendarDate?>
            switch values.clearable("due") {
            case .unchanged: due = .unchanged
            case .set(nil): due = .set(nil)
            case .set(.some): due = .set(try values.date("due", today: invocation.today))
            }
            let service = try await invocation.openService()
            let changes = try TaskChanges(
                title: values.string("title"), notes: values.string("notes"),
                status: values.value("status", as: TaskStatus.self), priority: values.value("priority", as: TaskPriority.self),
                dueDate: due, assignee: userPatch(values.clearable("assignee")),
                category: values.string("category").map { .set($0) } ?? .unchanged,
                externalID: values.string("external-id").map { .set($0) } ?? .unchanged)
            let task = try await service.updateTask(key, changes, expectedVersion: values.expectedVersion, as: actor)
            try await printTask(task, to: invocation, format: format, service: service, actor: actor) { TaskOutput.line($0, "updated") }
        })

    /// `task done`.
    static let done = edit("done", abstract: "Mark a task done.") { service, key, version, actor, _ in
        (try await service.completeTask(key, expectedVersion: version, as: actor), "done")
    }

    /// `task reopen`.
    static let reopen = edit("reopen", abstract: "Put a task back to open.") { service, key, version, actor, _ in
        (try await service.reopenTask(key, expectedVersion: version, as: actor), "reopened")
    }

    /// `task assign`.
    static let assign = edit(
        "assign", abstract: "Assign a task to a member, or unassign it with none.",
        positionals: [Positional("assignee", valueName: "EMAIL", help: "The member responsible, or none.")]
    ) { service, key, version, actor, values in
        guard case .set(let assignee) = userPatch(values.clearable("assignee")) else { preconditionFailure("ASSIGNEE is required") }
        let task = try await service.assignTask(key, to: assignee, expectedVersion: version, as: actor)
        return (task, assignee == nil ? "unassigned" : "assigned to \(values.requiredString("assignee"))")
    }

    /// `task delete`.
    static let delete = Command(
        "delete", abstract: "Delete a task; its history stays (task history KEY).",
        positionals: [SharedDeclarations.taskKey],
        options: [SharedDeclarations.ifVersion],
        run: Invocation.action { invocation in
            let format = try invocation.format()
            let (key, actor) = (try invocation.values.taskKey(), try invocation.actor())
            let service = try await invocation.openService()
            try await service.deleteTask(key, expectedVersion: invocation.values.expectedVersion, as: actor)
            try invocation.write(format == .json ? try JSONOutput.encode(["deleted": key.description]) : "deleted \(key)\n")
        })

    /// `task history`.
    static let history = Command(
        "history", abstract: "Show who changed what in a task, and when, oldest first (also of a deleted task).",
        positionals: [SharedDeclarations.taskKey],
        flags: [SharedDeclarations.csv],
        run: Invocation.action { invocation in
            let format = try invocation.format(allowsCSV: true)
            let (key, actor) = (try invocation.values.taskKey(), try invocation.actor())
            let service = try await invocation.openService()
            let entries = try await service.history(of: key, as: actor)
            var directory = try await UserDirectory.of(key.team, service: service, as: actor)
            try await directory.resolve(entries.flatMap(HistoryDocument.userIDs), using: service, as: actor)
            let documents = entries.map { HistoryDocument($0, users: directory) }
            switch format {
            case .table: try invocation.write(HistoryOutput.renderTable(documents))
            case .csv: try invocation.write(HistoryOutput.renderCSV(documents))
            case .json: try invocation.write(try JSONOutput.encode(documents))
            }
        })

    /// A one-step edit of a task (`done`, `reopen`, `assign`) with `--if-version`.
    private static func edit(
        _ name: String, abstract: String, positionals: [Positional] = [],
        _ body: @escaping @Sendable (TaskService, TaskKey, Int64?, UserRef, ParsedValues) async throws -> (TaskItem, String)
    ) -> Command {
        Command(
            name, abstract: abstract,
            positionals: [SharedDeclarations.taskKey] + positionals,
            options: [SharedDeclarations.ifVersion],
            run: Invocation.action { invocation in
                let format = try invocation.format()
                let (key, actor) = (try invocation.values.taskKey(), try invocation.actor())
                let service = try await invocation.openService()
                let (task, what) = try await body(service, key, invocation.values.expectedVersion, actor, invocation.values)
                try await printTask(task, to: invocation, format: format, service: service, actor: actor) { TaskOutput.line($0, what) }
            })
    }

    /// An email-or-none word as an assignee edit.
    private static func userPatch(_ patch: Patch<String?>) -> Patch<UserRef?> {
        switch patch {
        case .unchanged: .unchanged
        case .set(let text): .set(text.map(UserRef.init))
        }
    }

    /// Prints `task`: its JSON document, its detail block, or the `line` a change prints.
    private static func printTask(
        _ task: TaskItem, to invocation: Invocation, format: OutputFormat, service: TaskService, actor: UserRef, detailed: Bool = false,
        line: (TaskItem) -> String
    ) async throws {
        guard format == .json || detailed else {
            try invocation.write(line(task))
            return
        }
        var directory = try await UserDirectory.of(task.key.team, service: service, as: actor)
        try await directory.resolve(usersOf: [task], using: service, as: actor)
        let item = TaskListItem(task, users: directory, today: service.clock.today())
        try invocation.write(format == .json ? try JSONOutput.encode(item.document) : TaskOutput.detail(item))
    }
}
