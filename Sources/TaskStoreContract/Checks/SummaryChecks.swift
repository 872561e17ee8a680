import TaskCore
import Testing

extension TaskStoreContract {
    static let summaryChecks: [ContractCheck] = [
        ContractCheck("an empty team counts zero everywhere, and a viewer may read the counts") { f in
            try await f.makeTask("In another team", in: try await f.makeTeam())
            let counts = try await f.store.taskCounts(in: f.team, today: ContractFixture.today, access: readAccess(f.viewer))
            #expect(counts == TaskCounts())
            let summary = try await f.service.summary(of: f.team, as: f.viewer)
            #expect(summary.total == 0 && summary.overdue == 0)
            #expect(summary.byStatus == [.open: 0, .inProgress: 0, .done: 0])
            #expect(summary.byCategory.isEmpty && summary.openByAssignee.isEmpty)
        },
        ContractCheck("the counts split by status, by exact category with none its own group, overdue, and open tasks per assignee") { f in
            let today = ContractFixture.today
            let member = try await f.service.user(f.member), viewer = try await f.service.user(f.viewer)
            try await f.makeTask("Overdue", TaskDraftFields(dueDate: today.adding(days: -1), assignee: f.member, category: "Docs"))
            try await f.makeTask(
                "Overdue in progress", TaskDraftFields(status: .inProgress, dueDate: today.adding(days: -2), assignee: f.viewer, category: "docs"))
            try await f.makeTask("Done late", TaskDraftFields(status: .done, dueDate: today.adding(days: -1), assignee: f.member))
            try await f.makeTask("Due today", TaskDraftFields(dueDate: today, category: "Docs"))
            try await f.makeTask("Due tomorrow", TaskDraftFields(dueDate: today.adding(days: 1)))
            try await f.makeTask("Done", TaskDraftFields(status: .done, category: "Bugs"))
            try await f.makeTask("No due date", TaskDraftFields(assignee: f.member))
            try await f.makeTask("In another team", in: try await f.makeTeam(), TaskDraftFields(dueDate: today.adding(days: -1), category: "Docs"))

            let expected = TaskCounts(
                total: 7, byStatus: [.open: 4, .inProgress: 1, .done: 2], byCategory: ["Docs": 2, "docs": 1, "Bugs": 1, nil: 3],
                overdue: 2, openByAssignee: [member.id: 2, viewer.id: 1, nil: 2])
            let counts = try await f.store.taskCounts(in: f.team, today: today, access: readAccess(f.viewer))
            #expect(counts == expected)
            #expect(counts == TaskCounts(tallying: try await f.allTasks(), today: today))
            let tomorrow = try await f.store.taskCounts(in: f.team, today: today.adding(days: 1), access: readAccess(f.viewer))
            #expect(tomorrow.overdue == 3, "due today is overdue from tomorrow on")

            let summary = try await f.service.summary(of: f.team, as: f.viewer)
            #expect(summary.total == 7 && summary.overdue == 2)
            #expect(summary.byStatus == [.open: 4, .inProgress: 1, .done: 2])
            #expect(
                summary.byCategory == [
                    NamedCount(name: TaskRow.uncategorized, count: 3), NamedCount(name: "Docs", count: 2),
                    NamedCount(name: "Bugs", count: 1), NamedCount(name: "docs", count: 1),
                ])
            #expect(
                summary.openByAssignee == [
                    NamedCount(name: TaskRow.unassigned, count: 2), NamedCount(name: member.email, count: 2),
                    NamedCount(name: viewer.email, count: 1),
                ])
        },
        ContractCheck("counting is refused to outsiders, unknown and disabled users and for unknown teams exactly as listing is") { f in
            try await f.makeTask()
            let stranger = UserRef.email("nobody.\(f.uniqueSuffix().lowercased())@example.com")
            let unknownTeam = try TeamKey("Q" + f.uniqueSuffix())
            for (actor, team) in [(f.outsider, f.team), (f.disabled, f.team), (stranger, f.team), (f.owner, unknownTeam)] {
                let counting = await errorText { _ = try await f.store.taskCounts(in: team, today: ContractFixture.today, access: readAccess(actor)) }
                let listing = await errorText { _ = try await f.service.listTasks(in: team, as: actor) }
                #expect(counting == listing, "\(actor) in \(team)")
                #expect(counting != "no error", "\(actor) in \(team)")
            }
        },
    ]

    /// What reading a team's tasks takes, for calling the store directly.
    private static func readAccess(_ actor: UserRef) -> AccessRequirement {
        AccessRequirement(actor: actor, action: .readTasks)
    }
}
