import CommandLineToolkit
import TaskCore
import TaskbaseWire

/// `task list`: one page of a team's tasks, with every filter of `TaskQuery`.
enum TaskListCommand {
    /// The command.
    static let command = Command(
        "list", abstract: "List a team's tasks, one page at a time.",
        discussion: """
            Filters combine (all must hold). A page holds --limit tasks (1-1000, default 50); when \
            there are more, the table's footer on stderr and the JSON's next_cursor give the cursor \
            to pass to --after for the next page (with the same filters and sort). \
            Example: taskctl task list --team CORE --status open --status in_progress --due-before +7d --sort due
            """,
        options: [
            SharedDeclarations.team,
            Option("status", help: "Only this status; repeat for several.", type: .choice(of: TaskStatus.self), isRepeatable: true),
            Option("assignee", valueName: "EMAIL", help: "Only tasks assigned to this user."),
            Option("category", help: "Only this category (ignoring case)."),
            Option("due-before", valueName: "DATE", help: "Only tasks due before this date (\(DueDateExpression.accepted))."),
            Option("due-after", valueName: "DATE", help: "Only tasks due after this date."),
            Option("text", help: "Only tasks whose title or notes contain this text (ignoring case)."),
            Option("sort", help: "The order.", type: .choice(of: TaskSort.self), default: TaskSort.number.rawValue),
            Option("limit", valueName: "N", help: "Tasks per page, 1-1000.", type: .integer, default: "50"),
            Option("after", valueName: "CURSOR", help: "Continue after the page that printed this cursor."),
        ],
        flags: [
            Flag("unassigned", help: "Only tasks without an assignee."),
            Flag("uncategorized", help: "Only tasks without a category."),
            Flag("overdue", help: "Only tasks past their due date and not done."),
            Flag("desc", help: "Reverse the order."),
            SharedDeclarations.csv,
        ],
        run: Invocation.action { invocation in
            let format = try invocation.format(allowsCSV: true)
            let (team, actor) = (try invocation.values.teamKey(), try invocation.actor())
            let query = try query(from: invocation.values, today: invocation.today)
            let service = try await invocation.openService()
            let page = try await service.listTasks(in: team, query, as: actor)
            var directory = try await UserDirectory.of(team, service: service, as: actor)
            try await directory.resolve(usersOf: page.tasks, using: service, as: actor)
            let today = service.clock.today()
            let items = page.tasks.map { TaskListItem($0, users: directory, today: today) }
            try invocation.write(
                try TaskOutput.list.render(items, as: format) {
                    TaskPageDocument(tasks: items.map(\.document), nextCursor: JSONNullable(page.nextCursor?.encoded))
                })
            if format != .json, let next = page.nextCursor {
                try invocation.note("more tasks: repeat with --after \(next.encoded)")
            }
        })

    /// The query the options describe; contradictory filters are a usage error.
    static func query(from values: ParsedValues, today: CalendarDate) throws(UsageError) -> TaskQuery {
        if values.string("assignee") != nil && values.flag("unassigned") {
            throw UsageError("--assignee and --unassigned cannot be combined")
        }
        if values.string("category") != nil && values.flag("uncategorized") {
            throw UsageError("--category and --uncategorized cannot be combined")
        }
        var query = TaskQuery(
            statuses: Set(values.strings("status").compactMap(TaskStatus.init(rawValue:))),
            dueBefore: try values.date("due-before", today: today),
            dueAfter: try values.date("due-after", today: today),
            overdueOnly: values.flag("overdue"),
            text: values.string("text"),
            sort: values.value("sort", as: TaskSort.self) ?? .number,
            descending: values.flag("desc"),
            limit: values.int("limit") ?? 50,
            after: try values.cursor("after"))
        if values.flag("unassigned") {
            query.assignee = .unassigned
        } else if let email = values.string("assignee") {
            query.assignee = .user(UserRef(email))
        }
        if values.flag("uncategorized") {
            query.category = .uncategorized
        } else if let category = values.string("category") {
            query.category = .named(category)
        }
        return query
    }
}
