import CSVImport
import Foundation
import TaskCore

/// One query parameter a route reads: its name, and what the OpenAPI document says of it.
struct QueryParameter: Sendable {
    /// The name, as sent.
    let name: String
    /// Its schema (made when the document is: a JSON object is not `Sendable`).
    let schema: @Sendable () -> [String: Any]
    /// What it does, for the document.
    let description: String

    init(_ name: String, _ schema: @escaping @Sendable () -> [String: Any], _ description: String) {
        self.name = name
        self.schema = schema
        self.description = description
    }
}

/// The query parameters a route reads, declared once next to the route table: its handler
/// refuses any other name with them (422 naming it, so a misspelt one is never silently
/// ignored), and the OpenAPI document lists them, so the two cannot drift apart.
struct RouteQuery: Sendable {
    /// The parameters, in the document's order.
    let parameters: [QueryParameter]
    /// Why a name not among them is refused; nil when others are ignored.
    let refusal: String?
    private let names: Set<String>

    /// `parameters`, refusing any other name for the reason `refusal` gives from their names
    /// (in order), or ignoring others when it is nil.
    init(_ parameters: [QueryParameter], refusing refusal: ((_ names: [String]) -> String)?) {
        self.parameters = parameters
        self.refusal = refusal?(parameters.map(\.name))
        names = Set(parameters.map(\.name))
    }

    /// A route that reads no parameter, and ignores any sent.
    static let none = RouteQuery([], refusing: nil)

    /// Refuses the first parameter of `request` that is not declared, unless others are ignored.
    func refuseUndeclared(in request: HTTPRequest) throws {
        guard let refusal, let unknown = request.query.first(where: { !names.contains($0.name) }) else { return }
        throw TaskError.validation(field: unknown.name, reason: refusal)
    }
}

extension RouteQuery {
    private typealias Schema = OpenAPIDocument

    /// `GET /v1/teams/{team}/tasks` (`TaskListParameters`): the filters of `taskctl task list`.
    static let taskList = RouteQuery(
        [
            QueryParameter(
                "status", { Schema.matching(Schema.string, InputPatterns.names(TaskStatus.self)) },
                "\(Schema.names(TaskStatus.self)); repeat or separate with commas"),
            QueryParameter(
                "assignee", { Schema.matching(Schema.string, InputPatterns.user) },
                "an assignee's email or #id (422 when no such user exists)"),
            QueryParameter("unassigned", { Schema.boolean }, "only tasks without an assignee"),
            QueryParameter("category", { Schema.string }, "only this category (ignoring case, Unicode's mappings, and how accents are encoded)"),
            QueryParameter("uncategorized", { Schema.boolean }, "only tasks without a category"),
            QueryParameter("due_before", { Schema.matching(Schema.string, InputPatterns.date) }, "due before this day, YYYY-MM-DD"),
            QueryParameter("due_after", { Schema.matching(Schema.string, InputPatterns.date) }, "due after this day, YYYY-MM-DD"),
            QueryParameter("overdue", { Schema.boolean }, "only tasks past due and not done"),
            QueryParameter(
                "text", { Schema.string },
                "title or notes contain this (ignoring case, Unicode's mappings, surrounding spaces and how accents are encoded)"),
            QueryParameter(
                "sort", { Schema.matching(Schema.string, InputPatterns.whole(InputPatterns.name(TaskSort.self))) },
                "the order: \(Schema.names(TaskSort.self))"),
            QueryParameter("desc", { Schema.boolean }, "reverse the order"),
            QueryParameter("limit", { Schema.pageSize(TaskQuery.limitRange) }, "tasks per page (default 50)"),
            QueryParameter("after", { Schema.matching(Schema.string, InputPatterns.cursor) }, "the previous page's next_cursor"),
        ], refusing: { _ in "the task list takes no such parameter" })

    /// `GET /v1/tasks/{key}/history`: a page of a task's history.
    static let history = RouteQuery(
        [
            QueryParameter("limit", { Schema.pageSize(HistoryQuery.limitRange) }, "entries per page (default 100)"),
            QueryParameter("after", { Schema.matching(Schema.string, InputPatterns.cursor) }, "the cursor in the previous page's Link header"),
        ], refusing: { "the history takes no such parameter; it takes \($0.joined(separator: " and "))" })

    /// `POST /v1/teams/{team}/imports`: taskimport's options (`ImportOptions`), by the same names.
    static let imports = RouteQuery(
        [
            QueryParameter(
                "on-conflict",
                {
                    Schema.matching(
                        Schema.string,
                        InputPatterns.whole(ImportConflictPolicy.allCases.map { InputPatterns.caseless($0.rawValue) }.joined(separator: "|")))
                }, "a row whose external id the team has: update (default), skip, or fail the import (409)"),
            QueryParameter("dry-run", { Schema.boolean }, "check everything, write nothing"),
            QueryParameter(
                "max-errors", { ["type": "integer", "minimum": 0, "maximum": Int.max] },
                "leave out up to N bad rows (default 0: one bad row refuses the import)"),
            QueryParameter(
                "map", { Schema.matching(Schema.string, InputPatterns.columnOverride) },
                "FIELD=HEADER: fill FIELD (\(ImportField.allCases.map(\.rawValue).joined(separator: ", ")), or a synonym) from column HEADER; repeatable"
            ),
            QueryParameter(
                "delimiter", { Schema.matching(Schema.string, InputPatterns.delimiter) },
                "the separator, in any case: auto (the default: counted on the header line), , or comma, ; or semicolon, a tab, \\t or tab, | or pipe"
            ),
            QueryParameter(
                "encoding", { Schema.matching(Schema.string, InputPatterns.encoding) },
                "the body's encoding (default utf-8), its letters and digits in any case, punctuation ignored: utf-8, utf-16, utf-16le, utf-16be, windows-1252 (cp1252, win1252), latin1 (iso-8859-1, l1)"
            ),
            QueryParameter(
                "max-field-size", { ["type": "integer", "minimum": 1, "maximum": Int.max] }, "the longest field, in bytes (default 1 MiB)"),
        ], refusing: { "not an import option; the options are \($0.joined(separator: ", "))" })

    /// `GET /v1/teams/{team}/events`: where to resume. Any other parameter is ignored, as it
    /// always was: a browser reopens a stream by the URL it was given, and an EventSource
    /// polyfill may add its own (`lastEventId`).
    static let events = RouteQuery(
        [
            QueryParameter(
                "after", { ["type": "string", "pattern": "^([0-9]+:)?[0-9]+$"] },
                "resume after this event id (team id:sequence, as sent) or sequence, as Last-Event-ID does")
        ], refusing: nil)

    /// `GET /v1/teams/{team}/export`.
    static let export = RouteQuery(
        [QueryParameter("defuse-formulas", { Schema.boolean }, "start cells beginning with = + - or @ with ' so a spreadsheet shows them as text")],
        refusing: { "the export takes no such parameter; it takes \($0.joined(separator: " and "))" })
}
