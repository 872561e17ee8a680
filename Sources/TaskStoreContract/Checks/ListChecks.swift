import TaskCore
import Testing

extension TaskStoreContract {
    static let listChecks: [ContractCheck] = [
        ContractCheck("every filter selects exactly its tasks, and filters combine") { f in
            try await makeFilterStage(f)
            let member = try await f.service.user(f.member).id, viewer = try await f.service.user(f.viewer).id
            let cases: [(TaskQuery, [String])] = [
                (TaskQuery(), ["A", "B", "C", "D", "E"]),
                (TaskQuery(statuses: [.open]), ["A", "D", "E"]),
                (TaskQuery(statuses: [.open, .done]), ["A", "C", "D", "E"]),
                (TaskQuery(assignee: .user(.id(member))), ["A", "E"]),
                (TaskQuery(assignee: .user(f.viewer)), ["B"]),
                (TaskQuery(assignee: .user(.id(viewer))), ["B"]),
                (TaskQuery(assignee: .unassigned), ["C", "D"]),
                (TaskQuery(category: .named("docs")), ["A", "D"]),
                (TaskQuery(category: .uncategorized), ["C", "E"]),
                (TaskQuery(dueBefore: ContractFixture.today), ["A", "C"]),
                (TaskQuery(dueAfter: ContractFixture.today.adding(days: -5)), ["B", "E"]),
                (TaskQuery(overdueOnly: true), ["A"]),
                (TaskQuery(text: "REPORT"), ["A", "D", "E"]),
                (TaskQuery(statuses: [.open], category: .named("Docs"), text: "report"), ["A", "D"]),
                (TaskQuery(text: "nothing like this"), []),
            ]
            for (query, expected) in cases {
                let titles = try await f.service.listTasks(in: f.team, query, as: f.viewer).tasks.map { String($0.title.prefix(1)) }
                #expect(titles == expected, "\(query)")
            }
        },
        ContractCheck("text is one text however its accents are encoded or cased: stored composed, found by any form") { f in
            // é typed as e + U+0301 (as macOS file names and some exports hold it) and as one code point.
            let decomposed = try await f.makeTask(
                "Cafe\u{301} order", TaskDraftFields(notes: "cre\u{300}me bru\u{302}le\u{301}e ", category: "E\u{301}te\u{301}"))
            try await f.makeTask("Plain caf\u{E9}", TaskDraftFields(category: "\u{C9}T\u{C9}"))
            try await f.makeTask("\u{C9}T\u{C9} PLANS", TaskDraftFields(category: "\u{E9}t\u{E9}"))
            try await f.makeTask("cafe menu", TaskDraftFields(notes: "i\u{307}stanbul"))
            #expect(Array(decomposed.title.unicodeScalars) == Array("Caf\u{E9} order".unicodeScalars), "the title is stored composed (NFC)")
            #expect(Array(decomposed.notes.unicodeScalars) == Array("cr\u{E8}me br\u{FB}l\u{E9}e".unicodeScalars))
            #expect(decomposed.category.map { Array($0.unicodeScalars) } == Array("\u{C9}t\u{E9}".unicodeScalars))
            let cases: [(TaskQuery, [String])] = [
                (TaskQuery(text: "caf\u{E9}"), ["Caf\u{E9} order", "Plain caf\u{E9}"]),
                (TaskQuery(text: "  CAFE\u{301} "), ["Caf\u{E9} order", "Plain caf\u{E9}"]),
                (TaskQuery(text: "cafe"), ["cafe menu"]),
                (TaskQuery(text: "CR\u{C8}ME BR\u{DB}L\u{C9}E"), ["Caf\u{E9} order"]),
                (TaskQuery(text: "\u{E9}t\u{E9} plans"), ["\u{C9}T\u{C9} PLANS"]),
                (TaskQuery(text: "\u{130}"), ["cafe menu"]),
                (TaskQuery(text: "   "), ["Caf\u{E9} order", "Plain caf\u{E9}", "\u{C9}T\u{C9} PLANS", "cafe menu"]),
                (TaskQuery(category: .named("\u{E9}T\u{E9}")), ["Caf\u{E9} order", "Plain caf\u{E9}", "\u{C9}T\u{C9} PLANS"]),
                (TaskQuery(category: .named(" E\u{301}TE\u{301} ")), ["Caf\u{E9} order", "Plain caf\u{E9}", "\u{C9}T\u{C9} PLANS"]),
                (TaskQuery(category: .named("ete")), []),
            ]
            for (query, expected) in cases {
                let titles = try await f.service.listTasks(in: f.team, query, as: f.viewer).tasks.map(\.title)
                #expect(titles == expected, "\(query)")
            }
            // Grouped by the exact (composed) category: three spellings, each once, and none once.
            let counts = try await f.service.summary(of: f.team, as: f.viewer).byCategory
            #expect(
                Set(counts.map { "\($0.name.unicodeScalars.map(\.value))=\($0.count)" }) == [
                    "\(TaskRow.uncategorized.unicodeScalars.map(\.value))=1", "[201, 116, 233]=1", "[201, 84, 201]=1", "[233, 116, 233]=1",
                ])
        },
        ContractCheck("every sort orders as specified, nulls last, in both directions") { f in
            try await makeFilterStage(f)
            let c = try await f.allTasks().first { $0.title.hasPrefix("C") }!
            _ = try await f.service.updateTask(c.key, try TaskChanges(notes: "touched"), expectedVersion: c.version, as: f.member)
            let cases: [(TaskSort, Bool, String)] = [
                (.number, false, "ABCDE"), (.number, true, "EDCBA"),
                (.created, false, "ABCDE"), (.created, true, "EDCBA"),
                (.updated, false, "ABDEC"), (.updated, true, "CEDBA"),
                (.priority, true, "BAECD"), (.priority, false, "DCEAB"),
                (.due, false, "ACEBD"), (.due, true, "BECAD"),
            ]
            for (sort, descending, expected) in cases {
                let page = try await f.service.listTasks(in: f.team, TaskQuery(sort: sort, descending: descending), as: f.viewer)
                #expect(page.tasks.map { String($0.title.prefix(1)) }.joined() == expected, "\(sort) descending: \(descending)")
                #expect(page.nextCursor == nil)
            }
        },
        ContractCheck("pages skip and repeat no row while rows are inserted between fetches, in every order") { f in
            let priorities = TaskPriority.allCases
            for index in 0..<20 {
                let fields = TaskDraftFields(
                    priority: priorities[index % priorities.count], dueDate: index % 4 == 0 ? nil : ContractFixture.today.adding(days: index % 7))
                try await f.makeTask("Original \(index)", fields)
            }
            let originals = Set(try await f.allTasks().map(\.key))
            var inserted = 0
            for sort in TaskSort.allCases {
                for descending in [false, true] {
                    var seen: [TaskKey] = []
                    var query = TaskQuery(sort: sort, descending: descending, limit: 6)
                    repeat {
                        let page = try await f.service.listTasks(in: f.team, query, as: f.viewer)
                        #expect(page.tasks.count <= 6)
                        seen += page.tasks.map(\.key)
                        query.after = page.nextCursor
                        for _ in 0..<2 {
                            inserted += 1
                            let fields = TaskDraftFields(
                                priority: priorities[inserted % priorities.count], dueDate: ContractFixture.today.adding(days: inserted % 9 - 4))
                            try await f.makeTask("Inserted \(inserted)", fields)
                        }
                    } while query.after != nil
                    #expect(Set(seen).count == seen.count, "\(sort) descending: \(descending) repeated a row")
                    #expect(originals.isSubset(of: Set(seen)), "\(sort) descending: \(descending) skipped a row")
                }
            }
        },
        ContractCheck("a read snapshot's reads all see the moment of its first: changes, deletions and new tasks meanwhile are not seen") { f in
            let kept = try await f.makeTask("Kept")
            let doomed = try await f.makeTask("Doomed")
            try await f.service.withReadSnapshot { snapshot in
                let before = try await snapshot.listTasks(in: f.team, TaskQuery(limit: 1), as: f.viewer)
                #expect(before.tasks.map(\.key) == [kept.key])
                _ = try await f.service.updateTask(kept.key, try TaskChanges(title: "Changed"), expectedVersion: nil, as: f.member)
                try await f.service.deleteTask(doomed.key, as: f.member)
                try await f.makeTask("Later")
                let rest = try await snapshot.listTasks(in: f.team, TaskQuery(limit: 10, after: before.nextCursor), as: f.viewer)
                #expect(rest.tasks.map(\.title) == ["Doomed"])
                #expect(try await snapshot.task(kept.key, as: f.viewer).title == "Kept")
                #expect(try await snapshot.summary(of: f.team, as: f.viewer).total == 2)
            }
            #expect(try await f.allTasks().map(\.title) == ["Changed", "Later"])
        },
        ContractCheck("a full page with nothing after it still ends the list") { f in
            for index in 0..<4 { try await f.makeTask("Task \(index)") }
            let first = try await f.service.listTasks(in: f.team, TaskQuery(limit: 2), as: f.viewer)
            let second = try await f.service.listTasks(in: f.team, TaskQuery(limit: 2, after: first.nextCursor), as: f.viewer)
            #expect(first.tasks.map(\.key.number) == [1, 2])
            #expect(second.tasks.map(\.key.number) == [3, 4])
            #expect(second.nextCursor == nil)
        },
    ]

    /// Five tasks A-E whose fields exercise every filter and sort, as of 2026-03-10.
    static func makeFilterStage(_ f: ContractFixture) async throws {
        let day = { (d: Int) in CalendarDate(year: 2026, month: 3, day: d) }
        try await f.makeTask(
            "A: Write report", TaskDraftFields(notes: "quarterly numbers", priority: .high, dueDate: day(1), assignee: f.member, category: "Docs"))
        try await f.makeTask(
            "B: Fix login bug", TaskDraftFields(status: .inProgress, priority: .urgent, dueDate: day(20), assignee: f.viewer, category: "Bugs"))
        try await f.makeTask("C: Plan offsite", TaskDraftFields(status: .done, priority: .low, dueDate: day(5)))
        try await f.makeTask("D: Review Report draft", TaskDraftFields(category: "docs"))
        try await f.makeTask("E: Call vendor", TaskDraftFields(notes: "about the REPORT", priority: .medium, dueDate: day(10), assignee: f.member))
    }
}
