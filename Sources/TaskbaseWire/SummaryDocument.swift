import TaskCore

/// `team show --json` and `GET /v1/teams/{team}/summary`: `team` (a team document), `total`,
/// `by_status` (`open`, `in_progress`, `done`), `by_category` and `open_by_assignee` (lists of
/// `name` and `count`, largest first), and `overdue`.
public struct SummaryDocument: Codable, Hashable, Sendable {
    /// A label and its count.
    public struct Count: Codable, Hashable, Sendable {
        /// The label: a category or an assignee's name.
        public var name: String
        /// How many tasks.
        public var count: Int
    }

    /// The team and the reader's role.
    public var team: TeamDocument
    /// Every task.
    public var total: Int
    /// Tasks per status, every status present.
    public var byStatus: [String: Int]
    /// Tasks per category.
    public var byCategory: [Count]
    /// Tasks past their due date and not done.
    public var overdue: Int
    /// Open tasks per assignee.
    public var openByAssignee: [Count]

    enum CodingKeys: String, CodingKey {
        case team, total, byStatus = "by_status", byCategory = "by_category", overdue, openByAssignee = "open_by_assignee"
    }

    /// The document of `summary`, for a member with `role`.
    public init(_ summary: TeamSummary, role: Role) {
        team = TeamDocument(summary.team, role: role)
        total = summary.total
        byStatus = Dictionary(uniqueKeysWithValues: TaskStatus.allCases.map { ($0.rawValue, summary.byStatus[$0] ?? 0) })
        byCategory = summary.byCategory.map { Count(name: $0.name, count: $0.count) }
        overdue = summary.overdue
        openByAssignee = summary.openByAssignee.map { Count(name: $0.name, count: $0.count) }
    }
}
