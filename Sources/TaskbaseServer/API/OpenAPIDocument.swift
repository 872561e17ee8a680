import Foundation
import TaskCore

/// `GET /openapi.json`: the OpenAPI 3.1 description of every route, its parameters, bodies and
/// errors. `operations` is keyed by the router's own route labels (`GET /v1/tasks/{key}`); a
/// test holds the two to each other.
enum OpenAPIDocument {
    /// One operation's description.
    struct Operation {
        var summary: String
        var headers: [String] = []
        var body: (media: String, schema: String)? = nil
        var success: Int = 200
        /// Whether it also answers 201 with the same document, when the request made the
        /// resource (a `PUT` that adds a member; no `Location`: the resource is the target URI).
        var createsToo = false
        var successSchema: String? = nil
        var successMedia = "application/json"
        var errors: [Int] = []
        /// Errors whose body is not the plain `Problem` (status → schema).
        var errorSchemas: [Int: String] = [:]
        var authenticated = true
        /// Headers of the success answer beyond those every answer may carry (name, what it says).
        var successHeaders: [(name: String, description: String)] = []
    }

    /// The `Link` header of a paged answer.
    static let nextLink = (name: "Link", description: "`<path?…&after=cursor>; rel=\"next\"` while there is a next page")

    static var string: [String: Any] { ["type": "string"] }
    static var boolean: [String: Any] { ["type": "boolean"] }
    static func nullable(_ type: String) -> [String: Any] { ["type": [type, "null"]] }
    static func ref(_ name: String) -> [String: Any] { ["$ref": "#/components/schemas/\(name)"] }
    static func array(_ name: String) -> [String: Any] { ["type": "array", "items": ref(name)] }

    /// `schema` with a description, and an example when one is given: what documentation
    /// tools show and client generators carry into their types.
    static func described(_ schema: [String: Any], _ text: String, example: Any? = nil) -> [String: Any] {
        var schema = schema
        schema["description"] = text
        if let example { schema["examples"] = [example] }
        return schema
    }

    /// `schema` holding its strings to `pattern` (from `InputPatterns`).
    static func matching(_ schema: [String: Any], _ pattern: String) -> [String: Any] {
        schema.merging(["pattern": pattern]) { $1 }
    }

    /// A name as `UserFields.name` takes it (a team's or a token's).
    static var nameText: [String: Any] { matching(string, InputPatterns.userOrTeamName) }

    /// What a team's name may be.
    static var teamName: String {
        "the team's name: one line of 1 to \(UserFields.nameMaxLength) characters (Unicode code points) after trimming white space, no control character (NUL, ESC, ...) or bidi control (U+202A-U+202E, U+2066-U+2069)"
    }

    /// What the count of a composed text's characters means.
    static let composedNote = "counted once composed (NFC), so text sent decomposed may be longer by its combining marks"

    /// `open, in_progress or done`: the names a field of `Value` takes.
    static func names<Value: NamedValue>(_ type: Value.Type) -> String {
        let names = Value.allCases.map(\.rawValue)
        return names.dropLast().joined(separator: ", ") + " or " + names.last!
    }

    /// The fields a task is written with, described by the rules TaskCore checks them by; in a
    /// patch, `status` and `priority` cannot be null (they always have a value).
    static func taskFields(patch: Bool) -> [String: [String: Any]] {
        let forgiving = "case, spaces and hyphens are forgiven (In progress is in_progress)"
        let choice = patch ? string : nullable("string")
        func oneLine(_ maxLength: Int) -> [String: Any] { matching(nullable("string"), InputPatterns.trimmedText(0...maxLength, oneLine: true)) }
        return [
            "title": described(
                matching(string, InputPatterns.trimmedText(TaskFields.titleLength)),
                "1 to \(TaskFields.titleLength.upperBound) characters (Unicode code points) after trimming white space, no NUL; \(composedNote)",
                example: "Write the release notes"),
            "notes": described(
                matching(nullable("string"), InputPatterns.trailingTrimmedText(maxLength: TaskFields.notesMaxLength)),
                "at most \(TaskFields.notesMaxLength) characters once trailing white space is removed, no NUL, \(composedNote); null or empty for none"
            ),
            "status": described(
                matching(choice, InputPatterns.whole(InputPatterns.name(TaskStatus.self))),
                "\(names(TaskStatus.self)); \(forgiving)" + (patch ? "" : ". Open when not given"), example: "in_progress"),
            "priority": described(
                matching(choice, InputPatterns.whole(InputPatterns.name(TaskPriority.self))),
                "\(names(TaskPriority.self)); \(forgiving)" + (patch ? "" : ". None when not given"), example: "high"),
            "due_date": described(
                matching(nullable("string"), InputPatterns.date), "a real calendar date, YYYY-MM-DD, years 0001 to 9999; null for none",
                example: "2026-12-31"),
            "assignee": described(nullable("string"), "the email of one of the team's members; null for nobody"),
            "category": described(
                oneLine(TaskFields.categoryMaxLength),
                "one line of at most \(TaskFields.categoryMaxLength) characters after trimming white space, no NUL, \(composedNote); null or empty for none",
                example: "Docs"),
            "external_id": described(
                oneLine(TaskFields.externalIDMaxLength),
                "another system's id for the task, one line of at most \(TaskFields.externalIDMaxLength) characters after trimming white space, no NUL, \(composedNote), unique in the team (what imports match rows by); null or empty for none"
            ),
        ]
    }

    /// What a POST that adds to a collection says of its preconditions (`APIHandlers.creating`).
    static let collectionConditions =
        "If-Match: * holds (the collection's weak ETag, as its GET answers it, never matches a tag); If-None-Match: * or that ETag is 412, nothing made."

    /// Every operation, by route label.
    static var operations: [String: Operation] {
        [
            "GET /healthz": Operation(summary: "The process is up.", successSchema: "Health", authenticated: false),
            "GET /readyz": Operation(summary: "The database is reachable.", successSchema: "Health", errors: [503], authenticated: false),
            "GET /openapi.json": Operation(summary: "This document.", authenticated: false),
            "GET /v1/me": Operation(summary: "The token's user.", successSchema: "User"),
            "GET /v1/me/tokens": Operation(summary: "Your API tokens, newest first (never the secrets).", successSchema: "[Token]"),
            "POST /v1/me/tokens": Operation(
                summary: "Make a token for yourself; the secret is in this response only. \(collectionConditions)",
                headers: ["Idempotency-Key", "If-Match", "If-None-Match"],
                body: ("application/json", "CreateTokenRequest"), success: 201, successSchema: "NewToken", errors: [400, 409, 412, 422]),
            "GET /v1/me/tokens/{id}": Operation(
                summary: "One of your tokens (never the secret): where a new token's Location points.", successSchema: "Token", errors: [404]),
            "DELETE /v1/me/tokens/{id}": Operation(
                summary:
                    "Revoke one of your tokens. If-Match: * holds while it is yours (its weak ETag never matches a tag); If-None-Match: * or its ETag is 412.",
                headers: ["If-Match", "If-None-Match"], success: 204, errors: [404, 412]),
            "GET /v1/teams": Operation(summary: "The teams you belong to, with your role.", successSchema: "[Team]"),
            "POST /v1/teams": Operation(
                summary: "Create a team; you are its owner. \(collectionConditions)", headers: ["Idempotency-Key", "If-Match", "If-None-Match"],
                body: ("application/json", "CreateTeamRequest"), success: 201, successSchema: "Team", errors: [400, 409, 412, 422]),
            "GET /v1/teams/{team}": Operation(summary: "One team and your role in it.", successSchema: "Team", errors: [404]),
            "PATCH /v1/teams/{team}": Operation(
                summary:
                    "Rename a team (owners). If-Match: * holds while the team exists (its weak ETag never matches a tag); If-None-Match: * or its ETag is 412.",
                headers: ["If-Match", "If-None-Match"], body: ("application/json", "RenameTeamRequest"), successSchema: "Team",
                errors: [400, 403, 404, 412, 422]),
            "DELETE /v1/teams/{team}": Operation(
                summary:
                    "Delete a team with its tasks (owners). If-Match: * holds while the team exists (its weak ETag never matches a tag); If-None-Match: * or its ETag is 412.",
                headers: ["Idempotency-Key", "If-Match", "If-None-Match"], success: 204, errors: [403, 404, 409, 412, 422]),
            "GET /v1/teams/{team}/summary": Operation(summary: "Counts by status, category and assignee.", successSchema: "Summary", errors: [404]),
            "GET /v1/teams/{team}/members": Operation(summary: "The team's members.", successSchema: "[Member]", errors: [404]),
            "GET /v1/teams/{team}/members/{user}": Operation(
                summary: "One member (user by email, or #id of one the caller shares a team with).", successSchema: "Member", errors: [404]),
            "PUT /v1/teams/{team}/members/{user}": Operation(
                summary:
                    "Add a member (201) or change their role (200) (admins; owners for the owner role). A new member is named by email (anyone with that exact address) or by the #id of one the caller shares a team with. If-None-Match: * adds only one who is no member (412 otherwise, the role untouched); If-Match: * changes only a member (412 otherwise, nobody added).",
                headers: ["If-Match", "If-None-Match"], body: ("application/json", "MemberRoleRequest"), createsToo: true, successSchema: "Member",
                errors: [400, 403, 404, 412, 422]),
            "DELETE /v1/teams/{team}/members/{user}": Operation(
                summary:
                    "Remove a member (admins; anyone themself). The last enabled owner cannot leave: 422 validation with field user. Their tasks in the team are unassigned, each as an edit by the caller (a new version, a history entry, an event); the answer says how many (unassigned_tasks). If-Match: * removes only a member (412 when none); If-None-Match: * or the member's ETag is 412.",
                headers: ["Idempotency-Key", "If-Match", "If-None-Match"], successSchema: "MemberRemoval", errors: [403, 404, 409, 412, 422]),
            "GET /v1/teams/{team}/tasks": Operation(
                summary: "One page of the team's tasks; `next_cursor` and a `Link: rel=next` header lead to the next.",
                successSchema: "TaskPage", errors: [404, 422], successHeaders: [nextLink]),
            "POST /v1/teams/{team}/tasks": Operation(
                summary: "Create a task (members). \(collectionConditions)", headers: ["Idempotency-Key", "If-Match", "If-None-Match"],
                body: ("application/json", "CreateTaskRequest"), success: 201, successSchema: "Task", errors: [400, 403, 404, 409, 412, 422]),
            "POST /v1/teams/{team}/imports": Operation(
                summary:
                    "Import a CSV body into the team (members), all or nothing, as taskimport does; the answer is taskimport's --json summary with every refused row. If-Match: * holds (the imports have no ETag, so a tag never matches); If-None-Match: * is 412, nothing imported.",
                headers: ["Idempotency-Key", "Content-Encoding", "If-Match", "If-None-Match"], body: ("text/csv", "CSV"),
                successSchema: "ImportReport",
                errors: [400, 403, 404, 409, 412, 422],
                errorSchemas: [422: "ImportProblem"]),
            "GET /v1/teams/{team}/events": Operation(
                summary:
                    "The team's changes as Server-Sent Events: `id: <team id>:<sequence>`, `event: change` with a Change as data, or `event: resync` with `{\"through\": N}`; `: keep-alive` comments. Resume with Last-Event-ID (an id of another team once under this key is 404).",
                headers: ["Last-Event-ID"],
                successMedia: "text/event-stream", errors: [404, 422]),
            "GET /v1/teams/{team}/export": Operation(
                summary:
                    "Every task of the team as the CSV the imports route reads (columns External ID, Title, Notes, Status, Priority, Due Date, Assignee, Category; a task without an external id exports its key as one), streamed, as the team was when it began. A body cut off without its end is incomplete; past the server's --max-exports at once, 503 with Retry-After.",
                successSchema: "CSV", successMedia: "text/csv", errors: [404, 422],
                successHeaders: [
                    ("Content-Disposition", "`attachment; filename=\"TEAM-tasks.csv\"`"),
                    ("Content-Encoding", "`gzip` when the request's Accept-Encoding takes it"),
                ]),
            "GET /v1/tasks/{key}": Operation(
                summary: "One task; ETag is its version; If-None-Match gives 304, an If-Match that names another version 412.",
                headers: ["If-None-Match"], successSchema: "Task", errors: [404]),
            "PATCH /v1/tasks/{key}": Operation(
                summary:
                    "Change a task with a JSON Merge Patch (null clears); If-Match makes it conditional (412 when stale), as does If-None-Match (412 when it names the current version, or is *).",
                headers: ["If-Match", "If-None-Match"],
                body: ("application/merge-patch+json", "TaskPatch"), successSchema: "Task", errors: [400, 403, 404, 409, 412, 422]),
            "DELETE /v1/tasks/{key}": Operation(
                summary:
                    "Delete a task (its history stays); If-Match makes it conditional, as does If-None-Match (412 when it names the current version, or is *). A task already deleted is 410 to members who may delete (404 to outsiders).",
                headers: ["Idempotency-Key", "If-Match", "If-None-Match"], success: 204, errors: [403, 404, 409, 410, 412, 422]),
            "GET /v1/tasks/{key}/history": Operation(
                summary:
                    "A page of the task's history, oldest first, also of a deleted task; a `Link: rel=next` header leads to the next page.",
                successSchema: "[HistoryEntry]", errors: [404, 422], successHeaders: [nextLink]),
        ]
    }

    /// A page size in `range`, as the service checks it.
    static func pageSize(_ range: ClosedRange<Int>) -> [String: Any] {
        ["type": "integer", "minimum": range.lowerBound, "maximum": range.upperBound]
    }

    /// The document as a response.
    static func response(version: String, routes: [Route]) -> HTTPResponse {
        let data = (try? JSONSerialization.data(withJSONObject: document(version: version, routes: routes), options: [.sortedKeys])) ?? Data()
        return HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: .bytes(Array(data)))
    }

    /// The document of `routes`.
    static func document(version: String, routes: [Route]) -> [String: Any] {
        var paths: [String: [String: Any]] = [:]
        for route in routes {
            guard let operation = operations[route.label] else { continue }
            paths[route.pattern, default: [:]][route.method.lowercased()] = describe(operation, route: route)
        }
        return [
            "openapi": "3.1.0",
            "info": [
                "title": "Taskbase API", "version": version,
                "description":
                    "Team-shared tasks over HTTP. Every request acts as the user of its bearer token. Errors are RFC 9457 problem documents.",
            ],
            "servers": [["url": "/"]],
            "paths": paths,
            "components": [
                "schemas": schemas,
                "securitySchemes": [
                    "bearer": [
                        "type": "http", "scheme": "bearer",
                        "description":
                            "An API token (tb_…, from taskctl token create or POST /v1/me/tokens), or, where the server names an identity provider (--oidc-issuer), that provider's signed JWT.",
                    ]
                ],
            ],
        ]
    }

    static func describe(_ operation: Operation, route: Route) -> [String: Any] {
        // A JSON read without a version of its own is tagged with a digest (`DigestETag`).
        let digestTagged = route.method == "GET" && operation.successMedia == "application/json" && operation.successSchema != "Task"
        var operation = operation
        if digestTagged { operation.headers.append("If-None-Match") }
        // Every read judges If-Match (`Preconditions.judgeRead`): 412 unless it is * or names a
        // task's version.
        if route.method == "GET" {
            operation.headers.append("If-Match")
            operation.errors.append(412)
        }
        var parameters: [[String: Any]] = route.parameterNames.map { name in
            var parameter: [String: Any] = ["name": name, "in": "path", "required": true, "schema": pathSchemas[name] ?? string]
            if let (text, example) = pathParameters[name] {
                parameter["description"] = text
                parameter["example"] = example
            }
            return parameter
        }
        // The query parameters the route declares, which its handler takes (`RouteQuery`).
        parameters += route.query.parameters.map {
            ["name": $0.name, "in": "query", "required": false, "schema": $0.schema(), "description": $0.description]
        }
        // X-Request-Id is not declared as a parameter: any value is taken (an unusable one is
        // replaced, not refused), which a schema cannot say for a header.
        parameters += operation.headers.map { name in
            var parameter: [String: Any] = ["name": name, "in": "header", "required": false, "schema": headerSchemas[name] ?? string]
            parameter["example"] = headerExamples[name]
            return parameter
        }
        var responses: [String: Any] = [:]
        var success: [String: Any] = ["description": operation.summary]
        if let schema = operation.successSchema {
            let body = schema.hasPrefix("[") ? array(String(schema.dropFirst().dropLast())) : ref(schema)
            success["content"] = [operation.successMedia: ["schema": body]]
        } else if operation.successMedia != "application/json" || route.pattern == "/openapi.json" {
            success["content"] = [operation.successMedia: ["schema": string]]
        }
        var successHeaders: [String: Any] = (operation.authenticated ? allowanceHeaders : [:]).merging(requestIDHeader) { $1 }
        if digestTagged {
            successHeaders["ETag"] = [
                "schema": string,
                "description": "weak (W/\"…\"): a digest of this JSON; sent back in If-None-Match, it gives 304 while the answer is the same",
            ]
        } else if route.pattern == "/v1/tasks/{key}" || operation.successSchema == "Task" {
            successHeaders["ETag"] = ["schema": string, "description": "the task's version, quoted"]
        }
        if operation.success == 201 {
            successHeaders["Location"] = ["required": true, "schema": string, "description": "the path of what was created"]
        }
        for header in operation.successHeaders { successHeaders[header.name] = ["schema": string, "description": header.description] }
        success["headers"] = successHeaders
        if let links = links[operation.successSchema ?? ""], operation.success == 201 {
            success["links"] = links.mapValues { target in
                ["operationId": target.operation, "parameters": [target.parameter: "$response.body#/key"]] as [String: Any]
            }
        }
        responses[String(operation.success)] = success
        if operation.createsToo {
            success["description"] = "Created: " + operation.summary
            responses["201"] = success
        }
        // If-None-Match on a read gives 304; on a change, 412 (declared with the operation).
        if route.method == "GET", operation.headers.contains("If-None-Match") {
            responses["304"] = ["description": "Not modified", "headers": requestIDHeader]
        }
        // Every route: refused before routing are a query value that is not text (422) and a
        // request whose body's end is ambiguous (400), as `HTTPServer` answers them.
        var errors = operation.errors + [400, 422, 429, 500, 503]
        if operation.authenticated { errors += [401] }
        if operation.body != nil { errors += [413, 415] }
        errors += [431]
        for status in Set(errors) {
            var problem: [String: Any] = [
                "description": "A problem", "content": ["application/problem+json": ["schema": ref(operation.errorSchemas[status] ?? "Problem")]],
            ]
            if status == 431 {
                // libmicrohttpd answers it (as its own 400 for a malformed Content-Length, 414
                // and 505) before the server sees the request: a short HTML page, no Content-Type.
                problem = [
                    "description":
                        "Request headers over 32 KiB: libmicrohttpd's own answer, a short HTML page without Content-Type, no problem document"
                ]
            }
            // A 431 is libmicrohttpd's own page: no id.
            let id = status == 431 ? [:] : requestIDHeader
            var headers = (problemHeaders(status, authenticated: operation.authenticated) ?? [:]).merging(id) { $1 }
            if status == 415, route.method == "PATCH" {
                let types = APIHandlers.patchTypes.joined(separator: ", ")
                headers["Accept-Patch"] = ["required": true, "schema": string, "description": "the patch documents it takes: \(types)"]
            }
            if !headers.isEmpty { problem["headers"] = headers }
            responses[String(status)] = problem
        }
        var described: [String: Any] = [
            "summary": operation.summary, "operationId": operationID(route), "parameters": parameters, "responses": responses,
        ]
        if let body = operation.body {
            described["requestBody"] = ["required": body.schema != "CreateTokenRequest", "content": [body.media: ["schema": ref(body.schema)]]]
        }
        described["security"] = operation.authenticated ? [["bearer": [String]()]] : [[String: [String]]]()
        return described
    }

    /// The allowance headers, sent on the answers to a token's requests when the server runs
    /// with a rate limit (`--rate-limit`), so never required.
    static var allowanceHeaders: [String: Any] {
        [
            "X-RateLimit-Limit": ["schema": ["type": "integer", "minimum": 1], "description": "requests a user may make per minute"],
            "X-RateLimit-Remaining": ["schema": ["type": "integer", "minimum": 0], "description": "of those, what is left now"],
        ]
    }

    /// The request's id, on every answer the server gives (those before routing too): not on
    /// libmicrohttpd's own pages (a 431), nor on the 503 of a request the shutdown cut off.
    static var requestIDHeader: [String: Any] {
        [
            "X-Request-Id": [
                "schema": string,
                "description": "this request's id, also in its access-log line: the X-Request-Id sent, when usable, else one made here",
            ]
        ]
    }

    /// The headers every problem of `status` carries: when to retry a 429 or a 503, the
    /// challenge of a 401.
    static func problemHeaders(_ status: Int, authenticated: Bool) -> [String: Any]? {
        let retryAfter: [String: Any] = [
            "required": true, "schema": ["type": "integer", "minimum": 0], "description": "seconds to wait before trying again",
        ]
        switch status {
        case 401:
            let challenge =
                #"the Bearer challenge; with error="invalid_token" and an error_description when a bearer token was sent and refused (RFC 6750 §3.1)"#
            return ["WWW-Authenticate": ["required": true, "schema": string, "description": challenge]]
        case 429: return authenticated ? allowanceHeaders.merging(["Retry-After": retryAfter]) { $1 } : ["Retry-After": retryAfter]
        case 503: return ["Retry-After": retryAfter]
        case 412: return ["ETag": ["schema": string, "description": "the resource's current ETag, when it exists and has one"]]
        default: return nil
        }
    }

    /// OpenAPI links from a created document to what its `key` opens: a new team's key is the
    /// `{team}` of the team's routes, a new task's key the `{key}` of the task's (never its `id`).
    static var links: [String: [String: (operation: String, parameter: String)]] {
        [
            "Team": [
                "GetTeam": ("get_v1_teams_by_team", "team"), "ListTasks": ("get_v1_teams_by_team_tasks", "team"),
                "CreateTask": ("post_v1_teams_by_team_tasks", "team"), "ListMembers": ("get_v1_teams_by_team_members", "team"),
                "Summary": ("get_v1_teams_by_team_summary", "team"), "Import": ("post_v1_teams_by_team_imports", "team"),
                "RenameTeam": ("patch_v1_teams_by_team", "team"), "DeleteTeam": ("delete_v1_teams_by_team", "team"),
            ],
            "Task": [
                "GetTask": ("get_v1_tasks_by_key", "key"), "UpdateTask": ("patch_v1_tasks_by_key", "key"),
                "History": ("get_v1_tasks_by_key_history", "key"), "DeleteTask": ("delete_v1_tasks_by_key", "key"),
            ],
        ]
    }

    /// What each path parameter names, and an example of one.
    static var pathParameters: [String: (description: String, example: String)] {
        let team =
            "a team key: \(TeamKey.lengthRange.lowerBound) to \(TeamKey.lengthRange.upperBound) letters A-Z and digits, starting with a letter (case is forgiven)"
        return [
            "team": (team, "CORE"),
            "key": ("a task key: its team's key, a hyphen and its number (case is forgiven)", "CORE-42"),
            "user": (
                "a user's email (at most \(UserFields.emailMaxLength) characters), or # and their id (%23 in a URL); escape a / ? # or % in an email, as in any path segment",
                "ann@example.com"
            ),
            "id": ("the token's id, as the token list gives it: a number above 0", "7"),
        ]
    }

    /// Path parameters whose values the server reads by a rule (anything else names nothing: 404).
    static var pathSchemas: [String: [String: Any]] {
        [
            "team": matching(string, InputPatterns.teamKey), "key": matching(string, InputPatterns.taskKey),
            "user": matching(string, InputPatterns.user), "id": matching(string, InputPatterns.id),
        ]
    }

    /// Request headers whose values the server checks beyond "a string".
    static var headerSchemas: [String: [String: Any]] {
        [
            "Idempotency-Key": ["type": "string", "minLength": 1, "maxLength": 255, "pattern": "^[\\x20-\\x7E]+$"],
            "Last-Event-ID": ["type": "string", "pattern": "^([0-9]+:)?[0-9]*$"],
            "Content-Encoding": ["type": "string", "enum": ["gzip", "identity"]],
            // Entity tags compared byte for byte (a task's version, "3"), not numbers: "+3" or
            // "003" matches nothing (412); a list matches when any member does. The `*` branch
            // adds nothing the pattern does not take (it takes `*`, spaces around too), but it is
            // a value a generator can send: schemathesis's coverage phase draws a header's value
            // from its pattern with letters and digits alone, and for this pattern, which needs a
            // `*` or a `"`, it sent an empty If-Match as valid (422) on every operation taking one.
            "If-Match": [
                "type": "string", "anyOf": [["enum": ["*"]], ["pattern": InputPatterns.entityTags]],
                "description":
                    #"* (holds while the resource exists) or a list of entity tags; matches when one is the resource's strong ETag exactly, a task's version ("3", not "+3", "003" or W/"3"); a weak ETag never matches, so on any other resource only * holds"#,
            ],
        ]
    }

    /// An example of each conditional header, one that every route taking it accepts: `*`
    /// holds wherever the resource is there; a tag no ETag has (a task's versions start at 1)
    /// never matches in If-None-Match.
    static let headerExamples = ["If-Match": "*", "If-None-Match": #""0""#]

    /// `get_v1_tasks_by_key` for `GET /v1/tasks/{key}`.
    static func operationID(_ route: Route) -> String {
        route.method.lowercased() + "_"
            + route.pattern.split(separator: "/").map { $0.replacingOccurrences(of: "{", with: "by_").replacingOccurrences(of: "}", with: "") }
            .map { $0.replacingOccurrences(of: ".", with: "_") }.joined(separator: "_")
    }

    static func object(_ properties: [String: [String: Any]], required: [String]? = nil, additional: Bool = false) -> [String: Any] {
        ["type": "object", "properties": properties, "required": required ?? properties.keys.sorted(), "additionalProperties": additional]
    }

    static var dateTime: [String: Any] { ["type": "string", "format": "date-time"] }
    static var integer: [String: Any] { ["type": "integer"] }

    /// The user's fields a member and a removal both hold (`MemberUserFields`).
    static var memberUser: [String: [String: Any]] {
        ["user_id": integer, "email": string, "display_name": string, "disabled": boolean, "created_at": dateTime]
    }

    static var schemas: [String: Any] {
        [
            "Health": ["type": "object", "properties": ["status": string, "version": string], "required": ["status"]],
            "User": object(["id": integer, "email": string, "display_name": string, "disabled": boolean, "operator": boolean, "created_at": dateTime]
            ),
            "Team": object([
                "id": integer, "key": string, "name": string, "created_at": dateTime,
                "role": ["type": "string", "enum": ["viewer", "member", "admin", "owner"]],
            ]),
            "Member": object(memberUser.merging(["role": string]) { $1 }),
            "MemberRemoval": object(memberUser.merging(["team": string, "unassigned_tasks": ["type": "integer", "minimum": 0]]) { $1 }),
            "Task": object([
                "id": integer, "key": string, "team": string, "team_id": integer, "number": integer, "title": string, "notes": string,
                "status": ["type": "string", "enum": ["open", "in_progress", "done"]],
                "priority": ["type": "string", "enum": ["none", "low", "medium", "high", "urgent"]],
                "due_date": ["type": ["string", "null"], "format": "date"],
                "overdue": boolean, "assignee": nullable("string"), "category": nullable("string"), "external_id": nullable("string"),
                "version": integer,
                "created_at": dateTime, "created_by": string, "updated_at": dateTime, "updated_by": string,
                "assignee_id": nullable("integer"), "created_by_id": integer, "updated_by_id": integer,
            ]),
            "TaskPage": object(["tasks": array("Task"), "next_cursor": nullable("string")]),
            "Summary": object([
                "team": ref("Team"), "total": integer, "by_status": ["type": "object", "additionalProperties": integer],
                "by_category": ["type": "array", "items": object(["name": string, "count": integer])], "overdue": integer,
                "open_by_assignee": ["type": "array", "items": object(["name": string, "count": integer])],
            ]),
            "HistoryEntry": object([
                "task_id": integer, "version": integer, "kind": string, "at": dateTime, "actor": string, "actor_id": integer,
                "changes": [
                    "type": "array",
                    "items": object(
                        [
                            "field": string, "old": nullable("string"), "new": nullable("string"), "old_id": nullable("integer"),
                            "new_id": nullable("integer"),
                        ], required: ["field", "old", "new"]),
                ],
            ]),
            "Change": object([
                "sequence": integer, "kind": ["type": "string", "enum": ["created", "updated", "deleted"]], "key": string, "task_id": integer,
                "version": integer,
                "actor": string, "actor_id": integer, "at": dateTime, "title": nullable("string"),
            ]),
            "Token": object([
                "id": integer, "name": string, "prefix": string, "created_at": dateTime, "expires_at": dateTime,
                "last_used_at": ["type": ["string", "null"], "format": "date-time"],
                "revoked_at": ["type": ["string", "null"], "format": "date-time"],
            ]),
            "NewToken": object(["token": string, "id": integer, "name": string, "prefix": string, "expires_at": dateTime]),
            "Problem": object(
                [
                    "type": string, "title": string, "status": integer, "detail": string, "code": string, "field": string, "reason": string,
                    "what": string,
                    "why": string, "current_version": integer,
                ], required: ["type", "title", "status", "detail", "code"]),
            "CreateTaskRequest": object(taskFields(patch: false), required: ["title"]),
            "TaskPatch": described(
                object(taskFields(patch: true), required: []),
                "A JSON Merge Patch (RFC 7396) of the task: the fields to change, null clearing an optional one; fields left out stay as they are"),
            "CSV": [
                "type": "string", "description": "CSV text with a header row naming the columns (at least a title column)",
                "examples": ["Title,Status,Priority,Due Date,External ID\r\nWrite the release notes,open,high,2026-12-31,DOC-1\r\n"],
            ],
            "ImportReport": object(
                [
                    "file": string, "team": string, "dry_run": boolean, "on_conflict": string, "changed": boolean, "read": integer,
                    "inserted": integer, "updated": integer, "unchanged": integer, "skipped": integer, "rejected": integer,
                    "empty_rows_skipped": integer, "encoding": string, "byte_order_mark": boolean, "delimiter": string, "delimiter_from": string,
                    "normalised": ["type": "object", "additionalProperties": integer], "seconds": ["type": "number"],
                    "rows_per_second": integer, "reject_file": string, "rejections": array("ImportRejection"),
                ],
                required: [
                    "team", "dry_run", "on_conflict", "changed", "read", "inserted", "updated", "unchanged", "skipped", "rejected", "rejections",
                ]),
            "ImportRejection": object(["line": integer, "column": integer, "header": string, "reason": string], required: ["line", "reason"]),
            "ImportProblem": object(
                [
                    "type": string, "title": string, "status": integer, "detail": string, "code": string, "field": string, "reason": string,
                    "what": string, "why": string, "current_version": integer, "line": integer, "column": integer, "header": string,
                    "character": integer, "read": integer, "rejected": integer, "rejections": array("ImportRejection"),
                ], required: ["type", "title", "status", "detail", "code"]),
            "CreateTeamRequest": object([
                "key": described(
                    matching(string, InputPatterns.teamKey),
                    "\(TeamKey.lengthRange.lowerBound) to \(TeamKey.lengthRange.upperBound) letters A-Z and digits, starting with a letter, upper-cased (spaces around are trimmed): the prefix of the team's task keys",
                    example: "CORE"),
                "name": described(nameText, teamName, example: "Core platform"),
            ]),
            "RenameTeamRequest": object(["name": described(nameText, teamName, example: "Core platform")]),
            "MemberRoleRequest": object([
                "role": described(
                    matching(string, InputPatterns.whole(InputPatterns.name(Role.self))),
                    "\(names(Role.self)) (case, spaces and hyphens forgiven): viewers read; members also write tasks and import; admins also manage members (not owners); owners also the team itself and its owners",
                    example: "member")
            ]),
            "CreateTokenRequest": object(
                [
                    "name": described(
                        matching(nullable("string"), InputPatterns.userOrTeamName),
                        "a name to tell the token by, one line of 1 to \(UserFields.nameMaxLength) characters after trimming white space, no control character or bidi control; api when not given",
                        example: "deploy script"),
                    "expires_in": described(
                        matching(nullable("string"), InputPatterns.lifetime),
                        "its lifetime, like 90d, 12h, 30m or 3600s (units s, m, h, d; spaces around are trimmed), from 1 minute to 2 years; 90d when not given",
                        example: "30d"),
                ], required: []),
        ]
    }
}
