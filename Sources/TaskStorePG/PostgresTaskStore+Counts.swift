import Foundation
import PGStore
import TaskCore

extension PostgresTaskStore {
    /// One statement: the access facts, and one row per group of every breakdown from a single
    /// pass over the team's tasks (`GROUPING SETS`); `grouping()` tells the breakdowns apart,
    /// since a NULL category or assignee is a group of its own.
    public func taskCounts(in team: TeamKey, today: CalendarDate, access: AccessRequirement) async throws -> TaskCounts {
        let query: PGQuery = """
            SELECT \(unsafeSQL: Self.userColumns), m.role, c.*
              FROM \(Self.accessFactsFrom(access.actor, team: team))
              LEFT JOIN LATERAL (
                  SELECT grouping(t.status) = 0 AS by_status, grouping(t.category) = 0 AS by_category,
                         grouping(t.assignee_id) = 0 AS by_assignee,
                         t.status, t.category, t.assignee_id, count(*) AS tasks,
                         count(*) FILTER (WHERE t.status <> 'done') AS open,
                         count(*) FILTER (WHERE t.status <> 'done' AND t.due_date < \(Self.pgDate(today))) AS overdue
                    FROM tasks t
                   WHERE t.team_id = tm.id AND m.role IS NOT NULL AND NOT u.disabled
                     AND array_position(\(unsafeSQL: Self.roleRanks), m.role) >= \(Self.rank(access.minimumRole))
                   GROUP BY GROUPING SETS ((), (t.status), (t.category), (t.assignee_id))
              ) c ON true
            """
        let rows = try await statement(as: access.actor, query)
        try access.verify(AccessFacts(actor: Self.user(in: rows[0]), role: Self.role(in: rows[0])), subject: "team \(team)")
        var counts = TaskCounts()
        for row in rows {
            let tasks = try row.decode(Int.self, "tasks")
            if try row.decode(Bool.self, "by_status") {
                counts.byStatus[try Self.enumValue(TaskStatus.self, row, "status")] = tasks
            } else if try row.decode(Bool.self, "by_category") {
                counts.byCategory[try row.decode(String?.self, "category")] = tasks
            } else if try row.decode(Bool.self, "by_assignee") {
                let open = try row.decode(Int.self, "open")
                if open > 0 { counts.openByAssignee[try row.decode(Int64?.self, "assignee_id").map(UserID.init)] = open }
            } else {
                counts.total = tasks
                counts.overdue = try row.decode(Int.self, "overdue")
            }
        }
        return counts
    }
}
