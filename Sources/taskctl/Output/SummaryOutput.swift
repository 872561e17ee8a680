import CommandLineToolkit
import TaskCore

/// `team show --json`: `team` (a team document), `total`, `by_status` (`open`, `in_progress`,
/// `done`), `by_category` and `open_by_assignee` (lists of `name` and `count`, largest first),
/// and `overdue`.
struct SummaryDocument: Encodable {
    /// A label and its count.
    struct Count: Encodable {
        var name: String
        var count: Int
    }

    var team: TeamDocument
    var total: Int
    var byStatus: [String: Int]
    var byCategory: [Count]
    var overdue: Int
    var openByAssignee: [Count]

    enum CodingKeys: String, CodingKey {
        case team, total, byStatus = "by_status", byCategory = "by_category", overdue, openByAssignee = "open_by_assignee"
    }

    /// The document of `summary`, for a member with `role`.
    init(_ summary: TeamSummary, role: Role) {
        team = TeamDocument(summary.team, role: role)
        total = summary.total
        byStatus = Dictionary(uniqueKeysWithValues: TaskStatus.allCases.map { ($0.rawValue, summary.byStatus[$0] ?? 0) })
        byCategory = summary.byCategory.map { Count(name: $0.name, count: $0.count) }
        overdue = summary.overdue
        openByAssignee = summary.openByAssignee.map { Count(name: $0.name, count: $0.count) }
    }
}

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
