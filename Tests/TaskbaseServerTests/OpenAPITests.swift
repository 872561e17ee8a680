import CSVImport
import Foundation
import TaskCore
import TaskbaseServer
import TaskbaseWire
import Testing

@Suite("The OpenAPI document")
struct OpenAPITests {
    @Test("GET /openapi.json is OpenAPI 3.1 and describes exactly the router's routes, each path parameter, and problem responses")
    func matchesTheRouteTable() async throws {
        let f = try await ServerFixture.start(.memory)
        let reply = try await f.client().get("/openapi.json")
        #expect(reply.status == 200)
        let document = try #require(try JSONSerialization.jsonObject(with: reply.body) as? [String: Any])
        #expect(document["openapi"] as? String == "3.1.0")
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        var documented = Set<String>()
        for (path, methods) in paths { for method in methods.keys { documented.insert("\(method.uppercased()) \(path)") } }
        let routes = f.server.router.routes
        #expect(documented == Set(routes.map { "\($0.method) \($0.pattern)" }))
        for route in routes {
            let operation = try #require(paths[route.pattern]?[route.method.lowercased()] as? [String: Any], "\(route.method) \(route.pattern)")
            let parameters = operation["parameters"] as? [[String: Any]] ?? []
            let pathParameters = parameters.filter { $0["in"] as? String == "path" }.compactMap { $0["name"] as? String }
            #expect(pathParameters == route.parameterNames, "\(route.pattern)")
            for parameter in parameters where parameter["in"] as? String == "path" {
                #expect(parameter["description"] is String && parameter["example"] is String, "\(route.pattern): \(parameter)")
            }
            // A conditional header's example is one its schema takes.
            for parameter in parameters where parameter["in"] as? String == "header" && parameter["example"] != nil {
                let schema = try #require(parameter["schema"] as? [String: Any])
                #expect(OpenAPIRuleTests.takes(schema, parameter["example"]), "\(route.pattern): \(parameter)")
            }
            let responses = try #require(operation["responses"] as? [String: Any])
            #expect(responses.keys.contains { $0.hasPrefix("2") }, "\(route.pattern)")
            if route.authenticated { #expect(responses["401"] != nil, "\(route.pattern)") }
        }
        // Links name operations that exist.
        let operationIDs = Set(paths.values.flatMap { $0.values.compactMap { ($0 as? [String: Any])?["operationId"] as? String } })
        for methods in paths.values {
            for operation in methods.values.compactMap({ $0 as? [String: Any] }) {
                for response in (operation["responses"] as? [String: [String: Any]] ?? [:]).values {
                    for link in (response["links"] as? [String: [String: Any]] ?? [:]).values {
                        #expect(operationIDs.contains(link["operationId"] as? String ?? ""), "\(link)")
                    }
                }
            }
        }
        let schemas = try #require((document["components"] as? [String: Any])?["schemas"] as? [String: Any])
        for name in ["Task", "TaskPage", "Problem", "Change", "TaskPatch", "CreateTaskRequest", "Token", "NewToken"] {
            #expect(schemas[name] != nil, "\(name)")
        }
        await f.stop()
    }

    @Test("every field of a request body is described by the rules TaskCore holds it to, and the examples given are accepted")
    func requestFieldsDescribed() async throws {
        let f = try await ServerFixture.start(.memory)
        let document = try #require(try JSONSerialization.jsonObject(with: try await f.client().get("/openapi.json").body) as? [String: Any])
        let schemas = try #require((document["components"] as? [String: Any])?["schemas"] as? [String: [String: Any]])
        func fields(_ name: String) throws -> [String: [String: Any]] {
            try #require(schemas[name]?["properties"] as? [String: [String: Any]], "\(name)")
        }
        for name in ["CreateTaskRequest", "TaskPatch", "CreateTeamRequest", "RenameTeamRequest", "MemberRoleRequest", "CreateTokenRequest"] {
            for (field, schema) in try fields(name) {
                #expect(!(schema["description"] as? String ?? "").isEmpty, "\(name).\(field) has no description")
            }
        }
        let task = try fields("CreateTaskRequest")
        #expect(
            (task["title"]?["description"] as? String)?.hasPrefix(
                "1 to \(TaskFields.titleLength.upperBound) characters (Unicode code points) after trimming") == true)
        #expect((task["status"]?["description"] as? String)?.hasPrefix("open, in_progress or done;") == true)
        #expect((task["priority"]?["description"] as? String)?.hasPrefix("none, low, medium, high or urgent;") == true)
        #expect((try fields("MemberRoleRequest")["role"]?["description"] as? String)?.hasPrefix("viewer, member, admin or owner") == true)
        #expect(schemas["TaskPatch"]?["description"] as? String != nil, "a patch says it is a JSON Merge Patch")

        // A body made of the examples is one the API takes, as a client copying them would.
        func example(_ fields: [String: [String: Any]]) -> String {
            let values = fields.compactMapValues { ($0["examples"] as? [Any])?.first }
            return String(decoding: try! JSONSerialization.data(withJSONObject: values, options: [.sortedKeys]), as: UTF8.self)
        }
        let created = try await f.client("member").send("POST", "/v1/teams/\(f.team)/tasks", json: example(task))
        #expect(created.status == 201, "\(created.text)")
        #expect(created.text.contains(#""status":"in_progress""#) && created.text.contains(#""due_date":"2026-12-31""#), "\(created.text)")
        let key = try #require((try JSONSerialization.jsonObject(with: created.body) as? [String: Any])?["key"] as? String)
        let patched = try await f.client("member").send("PATCH", "/v1/tasks/\(key)", json: example(try fields("TaskPatch")))
        #expect(patched.status == 200, "\(patched.text)")
        let team = try await f.client("member").send("POST", "/v1/teams", json: example(try fields("CreateTeamRequest")))
        #expect(team.status == 201, "\(team.text)")
        let token = try await f.client("member").send("POST", "/v1/me/tokens", json: example(try fields("CreateTokenRequest")))
        #expect(token.status == 201, "\(token.text)")
        // The CSV body's example imports: one task, as its columns say.
        let csv = try #require((schemas["CSV"]?["examples"] as? [String])?.first)
        let imported = try await f.client("member").send(
            "POST", "/v1/teams/\(f.team)/imports", body: Data(csv.utf8), headers: ["Content-Type": "text/csv"])
        #expect(imported.status == 200 && imported.text.contains(#""inserted":1"#), "\(imported.text)")
        let tasks = try await f.service.listTasks(in: f.team, TaskQuery(), as: .id(f.member.id)).tasks
        #expect(tasks.contains { $0.title == "Write the release notes" && $0.priority == .high && $0.externalID == "DOC-1" })
        await f.stop()
    }

    @Test("paged answers declare the Link header they send while there is more; the export declares its download headers")
    func pagedAndDownloadHeaders() async throws {
        let f = try await ServerFixture.start(.memory)
        let document = try #require(try JSONSerialization.jsonObject(with: try await f.client().get("/openapi.json").body) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        func declared(_ path: String) -> Set<String> {
            let operation = paths[path]?["get"] as? [String: Any]
            let success = (operation?["responses"] as? [String: Any])?["200"] as? [String: Any]
            return Set((success?["headers"] as? [String: Any])?.keys.map { $0 } ?? [])
        }
        #expect(declared("/v1/teams/{team}/tasks").contains("Link") && declared("/v1/tasks/{key}/history").contains("Link"))
        #expect(declared("/v1/teams/{team}/export").isSuperset(of: ["Content-Disposition", "Content-Encoding"]))
        let task = try await f.service.createTask(in: f.team, try TaskDraft(title: "Twice"), as: .id(f.member.id))
        _ = try await f.service.updateTask(task.key, try TaskChanges(title: "Twice more"), expectedVersion: nil, as: .id(f.member.id))
        _ = try await f.service.createTask(in: f.team, try TaskDraft(title: "Other"), as: .id(f.member.id))
        let viewer = f.client("viewer")
        #expect(try await viewer.get("/v1/tasks/\(task.key)/history?limit=1").header("Link") != nil)
        #expect(try await viewer.get("/v1/teams/\(f.team)/tasks?limit=1").header("Link") != nil)
        #expect(try await viewer.get("/v1/teams/\(f.team)/export").header("Content-Disposition") != nil)
        await f.stop()
    }

    @Test("PUT of a member is declared 201 (added) and 200 (role changed), the same document, no Location")
    func memberPutDeclaresCreated() async throws {
        let f = try await ServerFixture.start()
        let document = try #require(try JSONSerialization.jsonObject(with: try await f.client().get("/openapi.json").body) as? [String: Any])
        let put = (document["paths"] as? [String: [String: Any]])?["/v1/teams/{team}/members/{user}"]?["put"] as? [String: Any]
        let responses = try #require(put?["responses"] as? [String: [String: Any]])
        let (created, changed) = (try #require(responses["201"]), try #require(responses["200"]))
        #expect(created["content"] as? NSDictionary == changed["content"] as? NSDictionary)
        #expect((created["headers"] as? [String: Any])?["Location"] == nil)
        await f.stop()
    }

    @Test("the response headers the document declares are the ones sent: Location, the challenge, Retry-After and the allowance")
    func declaredHeadersAreSent() async throws {
        let f = try await ServerFixture.start(rateLimit: RateLimit(requests: 2, per: .seconds(60)))
        let document = try #require(try JSONSerialization.jsonObject(with: try await f.client().get("/openapi.json").body) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        func declared(_ method: String, _ path: String, _ status: Int) throws -> [String: [String: Any]] {
            let operation = try #require(paths[path]?[method] as? [String: Any], "\(method) \(path)")
            let response = try #require((operation["responses"] as? [String: Any])?[String(status)] as? [String: Any], "\(status)")
            return response["headers"] as? [String: [String: Any]] ?? [:]
        }
        // Every 429 and 503 of every operation says when to retry.
        for (path, methods) in paths {
            for (method, _) in methods {
                for status in [429, 503] {
                    #expect(try declared(method, path, status)["Retry-After"]?["required"] as? Bool == true, "\(method) \(path) \(status)")
                }
            }
        }
        // Each reply carries every header declared for its status, and integers where declared so.
        func holds(_ reply: HTTPClient.Reply, to headers: [String: [String: Any]], _ expected: Set<String>) {
            #expect(Set(headers.keys) == expected, "\(reply.status): \(headers.keys.sorted())")
            for (name, header) in headers {
                let value = reply.header(name)
                #expect(value != nil, "\(reply.status) lacks \(name)")
                if (header["schema"] as? [String: Any])?["type"] as? String == "integer" {
                    #expect(value.flatMap { Int($0) } != nil, "\(name): \(value ?? "")")
                }
            }
        }
        let owner = f.client("owner")
        let created = try await owner.send("POST", "/v1/teams", json: #"{"key": "HDRS", "name": "Headers"}"#)
        #expect(created.status == 201)
        holds(created, to: try declared("post", "/v1/teams", 201), ["Location", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-Request-Id"])
        let refused = try await f.client().get("/v1/me")
        #expect(refused.status == 401)
        holds(refused, to: try declared("get", "/v1/me", 401), ["WWW-Authenticate", "X-Request-Id"])
        _ = try await owner.get("/v1/me")
        let limited = try await owner.get("/v1/me")
        #expect(limited.status == 429)
        holds(limited, to: try declared("get", "/v1/me", 429), ["Retry-After", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-Request-Id"])
        #expect(Set(try declared("get", "/healthz", 429).keys) == ["Retry-After", "X-Request-Id"], "a route without a token has no allowance")
        await f.stop()
    }

    @Test(
        "every query parameter the document declares is one its route takes, any other is refused (422 naming it), and the import's are the importer's"
    )
    func queryParametersAreTheRoutes() async throws {
        let f = try await ServerFixture.start(.memory)
        let document = try #require(try JSONSerialization.jsonObject(with: try await f.client().get("/openapi.json").body) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        let task = try await f.service.createTask(in: f.team, try TaskDraft(title: "Queried"), as: .id(f.member.id))
        let slots = ["{team}": f.team.rawValue, "{key}": task.key.description]
        let member = f.client("member")
        var checked: [String: [String]] = [:]
        for (pattern, methods) in paths {
            for (method, described) in methods {
                let operation = try #require(described as? [String: Any])
                let parameters = operation["parameters"] as? [[String: Any]] ?? []
                let declared = parameters.filter { $0["in"] as? String == "query" }.compactMap { $0["name"] as? String }
                let media = ((operation["responses"] as? [String: Any])?["200"] as? [String: Any])?["content"] as? [String: Any]
                // The event stream never ends, and ignores other parameters (a browser reopens
                // it by the URL it was given); EventStreamTests read its `after`.
                guard !declared.isEmpty, media?["text/event-stream"] == nil else { continue }
                var path = pattern
                for (slot, value) in slots { path = path.replacingOccurrences(of: slot, with: value) }
                #expect(!path.contains("{"), "\(pattern) has a path parameter this test gives no value")
                func send(_ query: String) async throws -> HTTPClient.Reply {
                    let posts = method == "post"
                    return try await member.send(
                        method.uppercased(), path + "?" + query, body: posts ? Data("Title\nQueried\n".utf8) : nil,
                        headers: posts ? ["Content-Type": "text/csv"] : [:])
                }
                let undeclared = try await send("undeclared-name=1")
                #expect(undeclared.status == 422 && undeclared.problem?.field == "undeclared-name", "\(method) \(pattern): \(undeclared.text)")
                let refusal = try #require(undeclared.problem?.reason, "\(method) \(pattern)")
                for name in declared {
                    let reply = try await send("\(name)=1")
                    #expect(reply.problem?.reason != refusal, "\(method) \(pattern) refuses \(name), which the document declares: \(reply.text)")
                }
                checked["\(method.uppercased()) \(pattern)"] = declared
            }
        }
        #expect(
            Set(checked.keys) == [
                "GET /v1/teams/{team}/tasks", "GET /v1/tasks/{key}/history", "POST /v1/teams/{team}/imports", "GET /v1/teams/{team}/export",
            ])
        // The import's parameters are the options the importer reads, no more and no fewer, as
        // its list of them says.
        var read: [String] = []
        _ = try ImportOptions { name in
            read.append(name)
            return []
        }
        #expect(checked["POST /v1/teams/{team}/imports"] == read && read == ImportOptions.names)
        await f.stop()
    }
}

@Suite("What the document says of libmicrohttpd's own answers")
struct DaemonAnswerDocumentTests {
    @Test("what is refused before routing is declared on every route: a query value that is not text (422), an ambiguous body end (400)")
    func refusedBeforeRouting() async throws {
        let f = try await ServerFixture.start(.memory)
        let document = try #require(try JSONSerialization.jsonObject(with: try await f.client().get("/openapi.json").body) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        for route in f.server.router.routes {
            let responses = (paths[route.pattern]?[route.method.lowercased()] as? [String: Any])?["responses"] as? [String: Any] ?? [:]
            #expect(responses["400"] != nil && responses["422"] != nil, "\(route.method) \(route.pattern): \(responses.keys.sorted())")
        }
        // Routes that read no query at all answer so too.
        let notText = try await f.client().get("/healthz?x=%FF")
        #expect(notText.status == 422 && notText.problem?.field == "x", "\(notText.text)")
        let connection = try RawConnection(port: f.server.http.port)
        connection.send("GET /v1/me HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\nConnection: close\r\n\r\nab")
        _ = await connection.readUntilClosed(limit: .seconds(10))
        #expect(connection.text.hasPrefix("HTTP/1.1 400 "), "\(connection.text)")
        await f.stop()
    }

    @Test("a 431 is declared as sent: libmicrohttpd's page without Content-Type, not a problem document")
    func headersTooLarge() async throws {
        let f = try await ServerFixture.start(.memory)
        let document = try #require(try JSONSerialization.jsonObject(with: try await f.client().get("/openapi.json").body) as? [String: Any])
        let me = try #require(((document["paths"] as? [String: Any])?["/v1/me"] as? [String: Any])?["get"] as? [String: Any])
        let declared = try #require((me["responses"] as? [String: Any])?["431"] as? [String: Any])
        #expect(declared["content"] == nil, "\(declared)")
        let connection = try RawConnection(port: f.server.http.port)
        connection.get("/v1/me", headers: ["X-Filler": String(repeating: "a", count: 40_000)])
        _ = await connection.readUntilClosed(limit: .seconds(10))
        let head = connection.text.components(separatedBy: "\r\n\r\n").first ?? ""
        #expect(head.hasPrefix("HTTP/1.1 431 "), "\(head)")
        #expect(!head.lowercased().contains("content-type: application/problem+json"), "\(head)")
        await f.stop()
    }
}

/// Whether the document's schemas and the server's validators take the same values: sample
/// values at and just beyond each bound the validators hold (from their own constants), and the
/// awkward characters (Unicode spaces, line breaks, NUL), must be taken by both or by neither.
@Suite("The OpenAPI document spells the rules the server holds inputs to")
struct OpenAPIRuleTests {
    /// Whether `schema` (the subset of JSON Schema the document uses for inputs) takes `value`
    /// (nil for JSON null). Patterns are searched as JSON Schema searches them.
    static func takes(_ schema: [String: Any], _ value: Any?) -> Bool {
        // anyOf: the rest of the schema and one of its branches, each read with the rest's type.
        if let branches = schema["anyOf"] as? [[String: Any]] {
            var rest = schema
            rest["anyOf"] = nil
            return takes(rest, value)
                && branches.contains { branch in
                    var branch = branch
                    if branch["type"] == nil { branch["type"] = rest["type"] }
                    return takes(branch, value)
                }
        }
        let types = (schema["type"] as? [String]) ?? [(schema["type"] as? String) ?? ""]
        switch value {
        case nil: return types.contains("null")
        case let text as String:
            guard types.contains("string") else { return false }
            if let pattern = schema["pattern"] as? String {
                // ECMA-262's `$` is the very end; ICU's also matches before a final line feed.
                let ecma = pattern.hasSuffix("$") ? pattern.dropLast() + #"\z"# : pattern
                let regex = try! NSRegularExpression(pattern: ecma)
                guard regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil else { return false }
            }
            let length = text.unicodeScalars.count
            if let options = schema["enum"] as? [String], !options.contains(text) { return false }
            if let minimum = schema["minLength"] as? Int, length < minimum { return false }
            if let maximum = schema["maxLength"] as? Int, length > maximum { return false }
            return true
        case let number as Int:
            guard types.contains("integer") else { return false }
            if let minimum = schema["minimum"] as? Int, number < minimum { return false }
            if let maximum = schema["maximum"] as? Int, number > maximum { return false }
            return true
        default: return false
        }
    }

    /// Expects `schema` and `validator` to agree on every sample.
    static func agree(_ name: String, _ schema: [String: Any]?, _ samples: [String?], _ validator: (String?) throws -> Void) {
        guard let schema else {
            Issue.record("\(name) has no schema")
            return
        }
        for sample in samples {
            let accepted = (try? validator(sample)) != nil
            #expect(
                takes(schema, sample) == accepted,
                "\(name): \(sample.map { String(reflecting: $0).prefix(80) } ?? "null") is \(accepted ? "accepted" : "refused") by the server")
        }
    }

    /// Text samples around `lengths` (counted after trimming) and the awkward characters.
    static func texts(_ lengths: ClosedRange<Int>) -> [String] {
        let counts = [0, 1, 2, lengths.lowerBound - 1, lengths.lowerBound, lengths.upperBound - 1, lengths.upperBound, lengths.upperBound + 1]
        var samples = counts.filter { $0 >= 0 }.map { String(repeating: "a", count: $0) }
        samples += [
            " " + String(repeating: "é", count: lengths.upperBound) + "\u{3000}\t\n", "  ", "\u{85}\u{2028}", "\u{A0}x\u{A0}", "\u{FEFF}",
            "\u{200B}", "a\u{0}", "\u{0}", "a\nb", "a\r\nb", "a\u{2029}b", "a\u{B}b", "a\tb", "a \u{1680} b", "\u{1F600}", "x\u{1F600}y",
            "x\n", "Ünïcödé\u{202F}", String(repeating: "\u{1F600}", count: lengths.upperBound + 1),
            // Control characters and bidi controls: titles and notes keep them, names refuse them.
            "a\u{1B}[31mb", "\u{1B}", "bell\u{7}", "del\u{7F}x", "\u{9B}x", "x\u{202E}y", "\u{2066}x\u{2069}", "a\u{202A}", "a\u{200D}b",
        ]
        return samples
    }

    @Test("the spaces, white space and line breaks the patterns are built from all lie in the Basic Multilingual Plane, which they scan")
    func predicatesInTheBMP() {
        let above = (UInt32(0x10000)...0x10FFFF).compactMap(Unicode.Scalar.init).filter {
            $0.isTrimmedSpace || $0.properties.isWhitespace || Character($0).isNewline
        }
        #expect(above.isEmpty, "\(above.map { String($0.value, radix: 16) })")
    }

    @Test("request bodies: titles, notes, categories, names, keys, names of values, dates and lifetimes")
    func bodies() async throws {
        let f = try await ServerFixture.start(.memory)
        let document = try #require(try JSONSerialization.jsonObject(with: try await f.client().get("/openapi.json").body) as? [String: Any])
        let schemas = try #require((document["components"] as? [String: Any])?["schemas"] as? [String: [String: Any]])
        func field(_ schema: String, _ name: String) -> [String: Any]? {
            (schemas[schema]?["properties"] as? [String: [String: Any]])?[name]
        }
        func draft(_ body: @escaping (String?) -> CreateTaskRequest) -> (String?) throws -> Void { { _ = try body($0).draft() } }
        func patch(_ set: @escaping (inout TaskMergePatch, String?) -> Void) -> (String?) throws -> Void {
            { value in
                var patch = TaskMergePatch()
                set(&patch, value)
                _ = try patch.changes()
            }
        }
        Self.agree("title", field("CreateTaskRequest", "title"), Self.texts(TaskFields.titleLength)) { _ = try CreateTaskRequest(title: $0!).draft() }
        Self.agree("patch title", field("TaskPatch", "title"), Self.texts(TaskFields.titleLength), patch { $0.title = .set($1) })
        Self.agree(
            "notes", field("CreateTaskRequest", "notes"), Self.texts(0...TaskFields.notesMaxLength) + [nil],
            draft { CreateTaskRequest(title: "t", notes: $0) })
        Self.agree(
            "category", field("CreateTaskRequest", "category"), Self.texts(0...TaskFields.categoryMaxLength) + [nil],
            draft { CreateTaskRequest(title: "t", category: $0) })
        Self.agree(
            "external_id", field("TaskPatch", "external_id"), Self.texts(0...TaskFields.externalIDMaxLength) + [nil],
            patch { $0.externalID = .set($1) })
        let statuses = [
            "open", "In progress", " in-progress\u{3000}", "IN_PROGRESS", "in  progress", "done ", "don", "opened", "", "\tdone", "done\n", "ope n",
            nil,
        ]
        Self.agree("status", field("CreateTaskRequest", "status"), statuses, draft { CreateTaskRequest(title: "t", status: $0) })
        Self.agree("patch status", field("TaskPatch", "status"), statuses, patch { $0.status = .set($1) })
        let priorities = TaskPriority.allCases.map(\.rawValue) + ["URGENT", " Medium ", "hi", "high\u{200B}", "nonE", nil]
        Self.agree("priority", field("CreateTaskRequest", "priority"), priorities, draft { CreateTaskRequest(title: "t", priority: $0) })
        let dates = [
            "2026-12-31", " 2026-01-01\t", "2024-02-29", "2023-02-29", "2000-02-29", "1900-02-29", "0000-01-01", "0001-01-01", "9999-12-31",
            "2026-04-31", "2026-04-30", "2026-13-01", "2026-00-10", "2026-01-00", "2026-01-32", "26-01-01", "2026-1-01", "2026/01/01",
            "２０２６-01-01", "2026-01-01\n", "0400-02-29", "0100-02-29", "", nil,
        ]
        Self.agree("due_date", field("CreateTaskRequest", "due_date"), dates, draft { CreateTaskRequest(title: "t", dueDate: $0) })
        let keys = [
            "AB", "ab", "A1", "A", "1A", "A_B", "Ab3", String(repeating: "Z", count: TeamKey.lengthRange.upperBound),
            String(repeating: "Z", count: TeamKey.lengthRange.upperBound + 1), String(repeating: "Z", count: TeamKey.lengthRange.lowerBound - 1),
            " CORE\t", "\u{3000}CORE\u{200B}", "CORE\n", "straße", "CØRE", "ＣＯＲＥ", "",
        ]
        Self.agree("team key", field("CreateTeamRequest", "key"), keys) { _ = try TeamKey($0!, field: "key") }
        Self.agree("team name", field("CreateTeamRequest", "name"), Self.texts(1...UserFields.nameMaxLength)) { _ = try UserFields.name($0!) }
        Self.agree("new name", field("RenameTeamRequest", "name"), Self.texts(1...UserFields.nameMaxLength)) { _ = try UserFields.name($0!) }
        Self.agree("token name", field("CreateTokenRequest", "name"), Self.texts(1...UserFields.nameMaxLength)) { _ = try TokenFields.name($0!) }
        let roles = Role.allCases.map(\.rawValue) + ["Owner", " ADMIN ", "admins", "view er", ""]
        Self.agree("role", field("MemberRoleRequest", "role"), roles) { _ = try Role(parsing: $0!) }
        var lifetimes = ["90d", " 12h ", "30m", "3600s", "+5m", "0005m", "0m", "-5m", "5", "m", "5 m", "5M", "5w", "1.5h", "", "5m\n", nil]
        for (unit, seconds) in TokenFields.lifetimeUnits {
            let low = Int((TokenFields.minLifetime / seconds).rounded(.up)), high = Int(TokenFields.maxLifetime / seconds)
            lifetimes += [low - 1, low, high, high + 1].map { "\($0)\(unit)" }
        }
        lifetimes += ["99999999999999999999d", "9223372036854775807s"]
        Self.agree("expires_in", field("CreateTokenRequest", "expires_in"), lifetimes) { value in
            _ = try value.map { try TokenFields.lifetime($0) }
        }
        await f.stop()
    }

    @Test("paths, headers and query parameters: keys, If-Match, statuses, sorts, dates and page sizes, as the routes answer")
    func parameters() async throws {
        let f = try await ServerFixture.start(.memory)
        let document = try #require(try JSONSerialization.jsonObject(with: try await f.client().get("/openapi.json").body) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        func parameter(_ path: String, _ method: String, _ name: String) -> [String: Any]? {
            let parameters = (paths[path]?[method] as? [String: Any])?["parameters"] as? [[String: Any]]
            return parameters?.first { $0["name"] as? String == name }?["schema"] as? [String: Any]
        }
        let teamKeys = ["CORE", "core", " Core ", "C", "CORE_1", "1CORE", String(repeating: "C", count: TeamKey.lengthRange.upperBound + 1)]
        Self.agree("path team", parameter("/v1/teams/{team}", "get", "team"), teamKeys) { _ = try TeamKey($0!) }
        let taskKeys = [
            "CORE-1", "core-42", " CORE-7 ", "CORE -7", "CORE- 7", "CORE-0", "CORE--1", "CORE-+3", "CORE-007", "C-1", "CORE1",
            "CORE-9223372036854775807", "CORE-9223372036854775808", "CORE-1-2", "A1-B2-3",
        ]
        Self.agree("path key", parameter("/v1/tasks/{key}", "get", "key"), taskKeys) { _ = try TaskKey(parsing: $0!) }
        // A user by #id or email: one that names no one as these rules read it is 404, whoever asks.
        let long = String(repeating: "a", count: UserFields.emailMaxLength - "@example.com".count) + "@example.com"
        let users = [
            "ann@example.com", "Ann@Example.COM", " ann@example.com\t", "\u{200B}ann@example.com", "\u{3000}ann@example.com\u{A0}", "#7", " #7 ",
            "7", "+7", "#0007", "#9223372036854775807", "#9223372036854775808", "#0", "0", "#-1", "#", "#x", "# 7", "ann", "ann@", "@example.com",
            "ann@example", "ann@.example.com", "ann@example.com.", "ann@@example.com", "a@b@example.com", "ann smith@example.com",
            "ann\u{0}@example.com", "\u{212A}ate@example.com", "kate@example.com", "j\u{F6}rg@m\u{FC}ller.de", "J\u{D6}RG@example.com", "a@b.c",
            "a@b..c", "a@.", "a.b@c.d", "ann@example.com\n", "ann@exa\u{2028}mple.com", "ann\u{85}@example.com", long, "\u{1F600}@example.com", "",
            "ann\u{1B}@example.com", "ann@exa\u{7F}mple.com", "\u{202E}ann@example.com", "ann@example.c\u{2066}om",
        ]
        Self.agree("path user", parameter("/v1/teams/{team}/members/{user}", "put", "user"), users) { value in
            if case .id = UserRef(value!) { return }
            _ = try UserFields.email(value!.trimmingSpaces())
        }
        let ids = ["1", "7", "+7", "0007", "9223372036854775807", "9223372036854775808", "0", "-1", " 7", "7 ", "", "x", "1e3", "\u{FF17}"]
        Self.agree("path id", parameter("/v1/me/tokens/{id}", "get", "id"), ids) { value in
            guard let id = Int64(value!), id > 0 else { throw TaskError.notFound(what: "token") }
        }
        let tags = [
            "*", " * ", "\"3\"", "W/\"3\"", "\"3\", \"4\"", ",\"3\",,", "3", "\"3", "\"a b\"", "\"é\"", "", " ", "\"3\" \"4\"", "**", "w/\"3\"",
        ]
        Self.agree("If-Match", parameter("/v1/tasks/{key}", "patch", "If-Match"), tags) { _ = try ETag.condition(in: $0!, field: "If-Match") }

        // An import's delimiter and encoding, as the importer reads them (every spelling it takes).
        func option(_ name: String) -> (String?) throws -> Void {
            { value in _ = try ImportOptions { $0 == name ? [value!] : [] } }
        }
        let imports = "/v1/teams/{team}/imports"
        let delimiters =
            [ImportOptions.automaticDelimiter, "AUTO", "Auto", "\\T", "Tab", "COMMA", "Semicolon", "PIPE"]
            + CSVDelimiter.allCases.flatMap(\.spellings)
            + ["", " tab", "tab ", "tabs", ":", ",,", "colon", "\\", "\t\t", "auto\n", "T", "\u{2C}\u{301}"]
        Self.agree("delimiter", parameter(imports, "post", "delimiter"), delimiters, option("delimiter"))
        var encodings = TextEncoding.allCases.flatMap { [$0.rawValue, $0.rawValue.uppercased(), $0.optionValue, $0.displayName] + $0.argumentKeys }
        encodings += [
            "UTF-8", "utf_8", " utf 8 ", "Utf-16LE", "UTF-16be", "win-1252", "CP-1252", "ISO-8859-1", "ISO_8859-1:1987", "L1", "u.t.f.8", "utf-8\n",
            "\u{2013}utf\u{2013}8\u{2013}", "", "utf-9", "ascii", "utf8x", "xutf8", "windows-1251", "\u{FF35}\u{FF34}\u{FF26}-8", "utf", "8",
            "utf-16-le-x", "latin",
        ]
        Self.agree("encoding", parameter(imports, "post", "encoding"), encodings, option("encoding"))
        // A column override: a field's name or synonym in any case and spacing, =, a header.
        let overrides = [
            "title=Name", "Title=Task Name", "TITLE\t=x", " title =Summary", "ti tle=x", "\u{3000}title=x", "due_date=Deadline", "DUE-DATE=When",
            "dueDate=Due on", "due date=d", "Deadline=Due", "external id=Ref", "id=Ref", "task_id=Ref", "assigned to=Owner", "Assignee Email=e",
            "section=Area", "body=Text", "title==x", "title=a=b", "title= ", "title=\n", "title=", "=Name", "Name", "", "tittle=x", "title x=y",
            "key=Key", "title-=x", "_title_=x", "tit\u{301}le=x",
        ]
        Self.agree("map", parameter(imports, "post", "map"), overrides, option("map"))

        // Query parameters, as the task list and the history answer them (anything but 422 is taken).
        let member = f.client("member")
        let task = try await f.service.createTask(in: f.team, try TaskDraft(title: "Rules"), as: .id(f.member.id))
        func answers(_ path: String, _ name: String, _ value: String?) async throws -> Bool {
            let query = value.map { "?\(name)=" + $0.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! } ?? ""
            let reply = try await member.get(path + query)
            #expect(reply.status == 200 || reply.status == 422, "\(reply.status) \(reply.text)")
            return reply.status == 200
        }
        func agreeQuery(_ path: String, _ route: String, _ name: String, _ samples: [String]) async throws {
            let schema = try #require(parameter(route, "get", name), "\(route) \(name)")
            for sample in samples {
                let accepted = try await answers(path, name, sample)
                let declared =
                    schema["type"] as? String == "integer" ? Int(sample).map { Self.takes(schema, $0) } ?? false : Self.takes(schema, sample)
                #expect(declared == accepted, "\(route) \(name)=\(sample) is \(accepted ? "accepted" : "refused")")
            }
        }
        let list = "/v1/teams/\(f.team)/tasks", listRoute = "/v1/teams/{team}/tasks"
        // Cursors are opaque: the pattern takes every one a page hands out and refuses only
        // what the routes refuse too (a well-formed one that names no place is 422 all the same).
        _ = try await f.service.createTask(in: f.team, try TaskDraft(title: "Rules 2"), as: .id(f.member.id))
        _ = try await f.service.updateTask(task.key, try TaskChanges(title: "Rules, again"), expectedVersion: nil, as: .id(f.member.id))
        let history = "/v1/tasks/\(task.key)/history", historyRoute = "/v1/tasks/{key}/history"
        for (path, route) in [(list, listRoute), (history, historyRoute)] {
            let schema = try #require(parameter(route, "get", "after"), "\(route) after")
            let first = try await member.get(path + "?limit=1")
            let next = first.nextPath.flatMap(URLComponents.init(string:))?.queryItems?.first { $0.name == "after" }?.value
            let cursor = try #require(next, "\(route) gave no cursor: \(first.text)")
            #expect(Self.takes(schema, cursor), "\(route): the pattern refuses the cursor \(cursor)")
            #expect(try await answers(path, "after", cursor))
            for refused in ["", " ", "+abc", "a/b", "abc=", "\(cursor) ", "\u{00E9}"] {
                #expect(!Self.takes(schema, refused), "\(route): the pattern takes \(refused)")
                #expect(try await !answers(path, "after", refused), "\(route): after=\(refused) was taken")
            }
        }
        // The assignee filter names a user as a member's path does: one the pattern refuses is
        // no user, 422; every member, by email in any case or by #id, is taken.
        let assignee = try #require(parameter(listRoute, "get", "assignee"))
        for taken in [f.member.email, f.member.email.uppercased(), " \(f.member.email) ", "#\(f.member.id.rawValue)", "\(f.owner.id.rawValue)"] {
            #expect(Self.takes(assignee, taken), "the assignee pattern refuses \(taken)")
            #expect(try await answers(list, "assignee", taken), "assignee=\(taken) was refused")
        }
        for refused in ["", "ann", "#0", "#x", "ann@example", "@example.com", "ann smith@example.com"] {
            #expect(!Self.takes(assignee, refused), "the assignee pattern takes \(refused)")
            #expect(try await !answers(list, "assignee", refused), "assignee=\(refused) was taken")
        }
        try await agreeQuery(
            list, listRoute, "status", ["open", "open,done", "Open, In progress", ",,done,", "", ",", "open;done", "open,,", "opn", " "])
        try await agreeQuery(list, listRoute, "sort", TaskSort.allCases.map(\.rawValue) + ["Due", " priority ", "size", ""])
        try await agreeQuery(list, listRoute, "due_before", ["2026-02-28", "2026-02-29", "2028-02-29", " 2026-03-01", "2026-3-01", ""])
        for (path, route, range) in [
            (list, listRoute, TaskQuery.limitRange), ("/v1/tasks/\(task.key)/history", "/v1/tasks/{key}/history", HistoryQuery.limitRange),
        ] {
            try await agreeQuery(
                path, route, "limit", [range.lowerBound - 1, range.lowerBound, range.upperBound, range.upperBound + 1].map(String.init))
        }
        await f.stop()
    }
}
