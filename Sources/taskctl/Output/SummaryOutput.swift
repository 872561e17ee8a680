import CommandLineToolkit
import TaskCore
import TaskbaseWire

/// How `team show` prints for people.
enum SummaryOutput {
    /// The team, its counts, then the category and assignee breakdowns as tables.
    static func render(_ summary: TeamSummary, role: Role) -> String {
        var block = DetailBlock(heading: "\(summary.team.key)  \(summary.team.name)")
        block.add("your role", role.rawValue)
        let statuses = TaskStatus.allCases.map { "\($0.rawValue) \(summary.byStatus[$0] ?? 0)" }.joined(separator: ", ")
        block.add("tasks", "\(summary.total) (\(statuses))")
        block.add("overdue", String(summary.overdue))
        block.add("created", Timestamp.iso(summary.team.createdAt))
        var text = block.render()
        if !summary.byCategory.isEmpty { text += "\n" + counts(summary.byCategory, heading: "CATEGORY") }
        if !summary.openByAssignee.isEmpty { text += "\n" + counts(summary.openByAssignee, heading: "ASSIGNEE") + "" }
        return text
    }

    private static func counts(_ counts: [NamedCount], heading: String) -> String {
        var table = TextTable(columns: [.init(heading, maxWidth: 40), .init(heading == "ASSIGNEE" ? "OPEN" : "TASKS", alignment: .right)])
        for count in counts { table.append([count.name, String(count.count)]) }
        return table.render()
    }
}
