import Foundation
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
}
