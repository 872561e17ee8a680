import TaskCore
import TaskStoreContract
import Testing

extension TaskSessionContract {
    static let listChecks: [SessionCheck] = [
        SessionCheck("every filter and sort pages through the team exactly as the service lists it") { f in
            let day = { (offset: Int) in ContractFixture.today.adding(days: offset) }
            try await f.makeTask(
                "A: Write report", TaskDraftFields(notes: "quarterly", priority: .high, dueDate: day(-9), assignee: f.member.ref, category: "Docs"))
            try await f.makeTask(
                "B: Fix login bug",
                TaskDraftFields(status: .inProgress, priority: .urgent, dueDate: day(10), assignee: f.viewer.ref, category: "Bugs"))
            try await f.makeTask("C: Plan offsite", TaskDraftFields(status: .done, priority: .low, dueDate: day(-5)))
            try await f.makeTask("D: Review Report draft", TaskDraftFields(category: "docs"))
            try await f.makeTask(
                "E: Call vendor", TaskDraftFields(notes: "about the REPORT", priority: .medium, dueDate: day(0), assignee: f.member.ref))
            try await f.makeTask("F: Caf\u{E9} order", TaskDraftFields(category: "\u{C9}t\u{E9}"))
            var queries: [TaskQuery] = [
                TaskQuery(), TaskQuery(statuses: [.open, .done]), TaskQuery(assignee: .user(.email(f.member.user.email))),
                TaskQuery(assignee: .user(f.viewer.ref)), TaskQuery(assignee: .unassigned), TaskQuery(category: .named("DOCS")),
                TaskQuery(category: .uncategorized), TaskQuery(dueBefore: day(0)), TaskQuery(dueAfter: day(-6)), TaskQuery(overdueOnly: true),
                TaskQuery(text: " report "), TaskQuery(statuses: [.open], category: .named("docs"), text: "REPORT"),
                TaskQuery(text: "nothing like this"), TaskQuery(text: "CAFE\u{301}"), TaskQuery(category: .named("E\u{301}TE\u{301}")),
            ]
            for sort in TaskSort.allCases {
                for descending in [false, true] { queries.append(TaskQuery(sort: sort, descending: descending)) }
            }
            for var query in queries {
                let expected = try await f.service.listTasks(in: f.team, query, as: f.viewer.ref).tasks
                query.limit = 2
                #expect(try await f.viewer.session.allTasks(in: f.team, query) == expected, "\(query)")
            }
            #expect(try await f.viewer.session.allTasks(in: f.team, TaskQuery(overdueOnly: true)).map(\.title) == ["A: Write report"])
            // A decomposed, upper-cased filter reaches the composed task however the session carries it.
            #expect(try await f.viewer.session.allTasks(in: f.team, TaskQuery(text: "CAFE\u{301}")).map(\.title) == ["F: Caf\u{E9} order"])
            #expect(
                try await f.viewer.session.allTasks(in: f.team, TaskQuery(category: .named("E\u{301}TE\u{301}"))).map(\.title) == [
                    "F: Caf\u{E9} order"
                ])
            // A word-final capital sigma lowers to ς in ICU and to σ in Swift: either spelling
            // finds it in every store (each found only one of them once, and not the same one).
            try await f.makeTask(
                "G: \u{39F}\u{394}\u{39F}\u{3A3} \u{391}\u{398}\u{397}\u{39D}\u{391}\u{3A3}",
                TaskDraftFields(category: "\u{39F}\u{394}\u{39F}\u{3A3}"))
            for spelling in ["\u{3BF}\u{3B4}\u{3BF}\u{3C2}", "\u{3BF}\u{3B4}\u{3BF}\u{3C3}", "\u{39F}\u{394}\u{39F}\u{3A3}"] {
                for query in [TaskQuery(text: spelling), TaskQuery(category: .named(spelling))] {
                    #expect(try await f.viewer.session.allTasks(in: f.team, query).map(\.title.first) == ["G"], "\(query)")
                }
            }
        },
        SessionCheck("pages skip and repeat no task while tasks are inserted between fetches") { f in
            for index in 0..<12 { try await f.makeTask("Original \(index)", TaskDraftFields(priority: TaskPriority.allCases[index % 5])) }
            let originals = Set(try await f.viewer.session.allTasks(in: f.team).map(\.key))
            for (sort, descending) in [(TaskSort.number, true), (.priority, false), (.updated, true)] {
                var seen: [TaskKey] = []
                var query = TaskQuery(sort: sort, descending: descending, limit: 5)
                repeat {
                    let page = try await f.viewer.session.listTasks(in: f.team, query)
                    seen += page.tasks.map(\.key)
                    query.after = page.nextCursor
                    _ = try await f.member.session.createTask(in: f.team, try TaskDraft(title: "Inserted", priority: .urgent))
                } while query.after != nil
                #expect(Set(seen).count == seen.count, "\(sort) repeated a task")
                #expect(originals.isSubset(of: Set(seen)), "\(sort) skipped a task")
            }
        },
        SessionCheck("a filter holding a NUL character is refused naming the filter, however the session carries it") { f in
            let queries: [(TaskQuery, String)] = [
                (TaskQuery(text: "re\u{0}port"), "text"), (TaskQuery(category: .named("Do\u{0}cs")), "category"),
                (TaskQuery(assignee: .user(.email("a\u{0}@example.com"))), "assignee"),
            ]
            for (query, field) in queries {
                // Memory once gave an empty page (or "no user exists"), Postgres in process a raw
                // libpq parameter error that was no TaskError.
                #expect(await Outcome.of { _ = try await f.viewer.session.listTasks(in: f.team, query) } == .invalid(field: field), "\(field)")
            }
        },
        SessionCheck("an assignee written like an id but none (#abc, #0) is refused as no id and no address, in a filter and on a task") { f in
            // It was read as an email: "no user #abc exists" in a filter, "not a member" on a task.
            for text in ["#abc", "#0", "#-3"] {
                let ref = UserRef(text)
                #expect(
                    await Outcome.of { _ = try await f.viewer.session.listTasks(in: f.team, TaskQuery(assignee: .user(ref))) }
                        == .invalid(field: "assignee"), "\(text)")
                do {
                    _ = try await f.member.session.createTask(in: f.team, try TaskDraft(title: "T", assignee: ref))
                    Issue.record("\(text) was taken")
                } catch TaskError.validation(let field, let reason) {
                    #expect(field == "assignee" && reason.contains("no user id"), "\(text): \(reason)")
                }
            }
        },
    ]
}
