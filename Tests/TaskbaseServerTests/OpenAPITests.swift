import Foundation
import TaskCore
import TaskbaseServer
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
            task["title"]?["description"] as? String == "1 to \(TaskFields.titleLength.upperBound) characters (Unicode code points) after trimming")
        #expect((task["status"]?["description"] as? String)?.hasPrefix("open, in_progress or done;") == true)
        #expect((task["priority"]?["description"] as? String)?.hasPrefix("none, low, medium, high or urgent;") == true)
        #expect(try fields("MemberRoleRequest")["role"]?["enum"] as? [String] == Role.allCases.map(\.rawValue))
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
        #expect(head.hasPrefix("HTTP/1.1 431") || head.hasPrefix("HTTP/1.1 413"), "\(head)")
        #expect(!head.lowercased().contains("content-type: application/problem+json"), "\(head)")
        await f.stop()
    }
}
