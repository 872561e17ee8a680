import Foundation
import TaskCore

/// `GET /v1/teams/{team}/tasks`'s query parameters, the filters of `taskctl task list`:
/// `status` (repeatable or comma-separated), `assignee` (email or `#id`), `unassigned`,
/// `category`, `uncategorized`, `due_before`, `due_after` (`YYYY-MM-DD`), `overdue`, `text`,
/// `sort` (number, created, updated, due, priority), `desc`, `limit` (1-1000, default 50) and
/// `after` (the previous page's `next_cursor`).
enum TaskListParameters {
    /// The query `context`'s request asks for; a bad or contradictory parameter is a validation
    /// error naming it, as is one the route does not declare (`RouteQuery.taskList`), so a typo
    /// does not list everything.
    static func query(from context: RouteContext) throws -> TaskQuery {
        try context.refuseUndeclaredParameters()
        let request = context.request
        let statuses = try request.queryValues("status").flatMap { $0.split(separator: ",") }.map { try TaskStatus(parsing: String($0)) }
        var query = TaskQuery(
            statuses: Set(statuses),
            dueBefore: try request.queryValue("due_before").map { try CalendarDate(iso: $0, field: "due_before") },
            dueAfter: try request.queryValue("due_after").map { try CalendarDate(iso: $0, field: "due_after") },
            overdueOnly: try request.flag("overdue"), text: request.queryValue("text"),
            sort: try request.queryValue("sort").map { try TaskSort(parsing: $0) } ?? .number, descending: try request.flag("desc"),
            limit: try request.limit(default: 50), after: try request.queryValue("after").map { try TaskCursor(encoded: $0) })
        let assignee = request.queryValue("assignee"), category = request.queryValue("category")
        if try request.flag("unassigned") {
            guard assignee == nil else { throw TaskError.validation(field: "unassigned", reason: "unassigned cannot be combined with assignee") }
            query.assignee = .unassigned
        } else if let assignee {
            query.assignee = .user(UserRef(assignee))
        }
        if try request.flag("uncategorized") {
            guard category == nil else {
                throw TaskError.validation(field: "uncategorized", reason: "uncategorized cannot be combined with category")
            }
            query.category = .uncategorized
        } else if let category {
            query.category = .named(category)
        }
        return query
    }

    /// The path and query of the next page: the same parameters with `after` set to `cursor`.
    static func nextPage(of request: HTTPRequest, cursor: String) -> String {
        let kept = request.query.filter { $0.name != "after" } + [("after", cursor)]
        return request.path + "?" + kept.map { "\(encode($0.name))=\(encode($0.value))" }.joined(separator: "&")
    }

    private static func encode(_ text: String) -> String {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&=+?#")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}

extension HTTPRequest {
    /// The `Link: <…>; rel="next"` header of a page whose next one starts at `cursor` (none
    /// on the last page): this request's path and parameters with `after` set to it.
    func nextPageLink(cursor: String?) -> [(name: String, value: String)] {
        cursor.map { [("Link", "<\(TaskListParameters.nextPage(of: self, cursor: $0))>; rel=\"next\"")] } ?? []
    }

    /// The page size the query asks for (`limit`), else `fallback`; not a number is a
    /// validation error (the range is the service's to check).
    func limit(default fallback: Int) throws -> Int {
        guard let text = queryValue("limit") else { return fallback }
        guard let limit = Int(text) else { throw TaskError.validation(field: "limit", reason: "\(text) is not a number") }
        return limit
    }

    /// The boolean query parameter `name`: absent, `false` or `0` is false; `true` or `1` is
    /// true; anything else (an empty value too) is a validation error naming it.
    func flag(_ name: String) throws -> Bool {
        switch queryValue(name)?.lowercased() {
        case nil, "false", "0": return false
        case "true", "1": return true
        // The document says boolean: an empty value (`?desc=`) is neither, not a silent yes.
        case ""?: throw TaskError.validation(field: name, reason: "\(name) needs a value: true or false")
        case let other?: throw TaskError.validation(field: name, reason: "\(other) is not true or false")
        }
    }
}
