import Foundation
import PGStore
import TaskCore

extension PostgresTaskStore {
    /// The SQL of `TaskSort.primaryKey`: the same 64-bit key, so cursors mean the same in both stores.
    static func sortKey(_ sort: TaskSort, descending: Bool) -> String {
        switch sort {
        case .number: "t.number"
        case .created: "(extract(epoch FROM t.created_at) * 1000000)::bigint"
        case .updated: "(extract(epoch FROM t.updated_at) * 1000000)::bigint"
        case .due: "coalesce((t.due_date - DATE '1970-01-01')::bigint, \(descending ? Int64.min : Int64.max))"
        case .priority: "(array_position(ARRAY['none','low','medium','high','urgent'], t.priority) - 1)::bigint"
        }
    }

    /// `WHERE` conditions for every filter of `query`, values as parameters.
    static func filters(_ query: TaskQuery, today: CalendarDate) -> PGQuery {
        var sql: PGQuery = "TRUE"
        if !query.statuses.isEmpty {
            sql.append(" AND t.status = ANY(\(query.statuses.map(\.rawValue).sorted())::text[])")
        }
        switch query.assignee {
        case nil: break
        case .unassigned: sql.append(" AND t.assignee_id IS NULL")
        case .user(.id(let id)): sql.append(" AND t.assignee_id = \(id.rawValue)")
        case .user(.email(let email)):
            sql.append(" AND t.assignee_id = (SELECT id FROM users WHERE lower(email) = \(Self.emailKey(email)))")
        }
        switch query.category {
        case nil: break
        case .uncategorized: sql.append(" AND t.category IS NULL")
        case .named:
            let name = query.categoryName ?? ""
            let (open, close) = Self.folding(sigma: TextRules.hasSigma(TextRules.folded(name)))
            sql.append(
                """
                 AND \(unsafeSQL: open)t.category\(unsafeSQL: close) = (SELECT \(unsafeSQL: open)\(name)\(unsafeSQL: close))
                """)
        }
        if let before = query.dueBefore { sql.append(" AND t.due_date < \(pgDate(before))") }
        if let after = query.dueAfter { sql.append(" AND t.due_date > \(pgDate(after))") }
        if query.overdueOnly { sql.append(" AND t.due_date < \(pgDate(today)) AND t.status <> 'done'") }
        if let text = query.searchText {
            // Lower-cased by taskbase_fold, Unicode's full mappings (ICU), whatever the database's
            // LC_CTYPE, which under C folds A-Z only. The pattern is lowered once (a sub-select,
            // so a generic plan does not lower it per row, as ILIKE would): 2.2x the scan time of
            // ILIKE under C, where ILIKE under taskbase_fold took 3.6x.
            let pattern = "%" + likeEscaped(text) + "%"
            let (open, close) = Self.folding(sigma: TextRules.hasSigma(TextRules.folded(text)))
            sql.append(
                """
                 AND (\(unsafeSQL: open)t.title\(unsafeSQL: close) LIKE (SELECT \(unsafeSQL: open)\(pattern)\(unsafeSQL: close)) \
                OR \(unsafeSQL: open)t.notes\(unsafeSQL: close) LIKE (SELECT \(unsafeSQL: open)\(pattern)\(unsafeSQL: close)))
                """)
        }
        if let after = query.after {
            let key = sortKey(query.sort, descending: query.descending)
            let comparison = query.descending ? "<" : ">"
            if query.sort == .number {
                sql.append(" AND t.number \(unsafeSQL: comparison) \(after.number)")
            } else {
                sql.append(" AND (\(unsafeSQL: key), t.number) \(unsafeSQL: comparison) (\(after.primaryKey), \(after.number))")
            }
        }
        return sql
    }

    /// What goes around an expression to fold it as a filter compares (`TextRules.folded`):
    /// lower-cased by `taskbase_fold`, Unicode's full mappings (ICU), and with `sigma` the final
    /// sigma made a plain one too — only for a filter holding a sigma: for any other, a row's ς
    /// or σ cannot change whether it matches, and the row's text is not translated.
    static func folding(sigma: Bool) -> (open: String, close: String) {
        sigma ? ("translate(lower(", " COLLATE taskbase_fold), 'ς', 'σ')") : ("lower(", " COLLATE taskbase_fold)")
    }

    /// `text` with LIKE's wildcards and escape character taken literally.
    static func likeEscaped(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_")
    }

    public func listTasks(in team: TeamKey, query: TaskQuery, today: CalendarDate, access: AccessRequirement) async throws -> TaskPage {
        let direction = query.descending ? " DESC" : ""
        let key = Self.sortKey(query.sort, descending: query.descending)
        let order = query.sort == .number ? "t.number\(direction)" : "\(key)\(direction), t.number\(direction)"
        // The outer ORDER BY repeats the page's own order (the key is selected as sort_key, and
        // the number breaks ties, unique in the team), so the page keeps it whatever plan joins
        // it to the access facts. On rows that arrive in that order, the sort is a check.
        let keyColumn = query.sort == .number ? "" : ", \(key) AS sort_key"
        let outerOrder = query.sort == .number ? "p.number\(direction)" : "p.sort_key\(direction), p.number\(direction)"
        let sql: PGQuery = """
            SELECT \(unsafeSQL: Self.userColumns), m.role, p.*
              FROM \(Self.accessFactsFrom(access.actor, team: team))
              LEFT JOIN LATERAL (
                  SELECT \(unsafeSQL: Self.taskColumns)\(unsafeSQL: keyColumn)
                    FROM tasks t
                   WHERE t.team_id = tm.id AND m.role IS NOT NULL AND NOT u.disabled AND \(Self.filters(query, today: today))
                   ORDER BY \(unsafeSQL: order)
                   LIMIT \(query.limit + 1)
              ) p ON true
             ORDER BY \(unsafeSQL: outerOrder)
            """
        let rows = try await statement(as: access.actor, sql)
        try access.verify(AccessFacts(actor: Self.user(in: rows[0]), role: Self.role(in: rows[0])), subject: "team \(team)")
        var tasks = try rows.compactMap { try Self.task(in: $0, team: team) }
        var next: TaskCursor?
        if tasks.count > query.limit {
            tasks.removeLast(tasks.count - query.limit)
            next = TaskCursor(after: tasks[tasks.count - 1], sort: query.sort, descending: query.descending)
        }
        return TaskPage(tasks: tasks, nextCursor: next)
    }
}
