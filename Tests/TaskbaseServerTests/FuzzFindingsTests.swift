import Foundation
import TaskbaseWire
import Testing

/// What scripts/api-fuzz (schemathesis over the OpenAPI document) found, kept as tests.
@Suite("What the API fuzz found")
struct FuzzFindingsTests {
    @Test("a NUL character in a value is a 422 naming the problem, not a 500", arguments: StoreKind.allCases)
    func nulCharacter(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store)
        let reply = try await f.client("member").send(
            "POST", "/v1/teams/\(f.team)/tasks", json: #"{"title": "NUL", "assignee": "a\u0000b@example.com"}"#)
        #expect(reply.status == 422, "\(reply.text)")
        #expect(reply.problem?.code == "validation")
        #expect(reply.problem?.field == "assignee", "refused by the service's rules, naming the field, not by the database")
        #expect(try await f.client("member").get("/v1/teams/\(f.team)/tasks").decode(TaskPageDocument.self).tasks.isEmpty)
        await f.stop()
    }

    @Test("a body field the request does not take is a 422 naming it, for every closed request", arguments: StoreKind.allCases)
    func unknownBodyField(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store)
        let owner = f.client("owner")
        #expect(try await owner.send("POST", "/v1/me/tokens", json: #"{"name": "ci", "x-extra": 42}"#).problem?.field == "x-extra")
        #expect(try await owner.send("POST", "/v1/teams", json: #"{"key": "XTRA", "name": "X", "colour": "red"}"#).problem?.field == "colour")
        #expect(try await owner.send("PATCH", "/v1/teams/\(f.team)", json: #"{"name": "Y", "key": "NEW"}"#).problem?.field == "key")
        #expect(try await owner.send("POST", "/v1/teams/\(f.team)/tasks", json: #"{"title": "T", "due": "2026-01-01"}"#).status == 422)
        #expect(try await owner.get("/v1/teams/XTRA").status == 404)
        await f.stop()
    }

    @Test("a list flag with an empty value (?desc=) is a 422 naming it, as the document's boolean says; true and false work")
    func emptyFlag() async throws {
        let f = try await ServerFixture.start(.memory)
        let member = f.client("member")
        for flag in ["desc", "overdue", "unassigned", "uncategorized"] {
            let reply = try await member.get("/v1/teams/\(f.team)/tasks?\(flag)=")
            #expect(reply.status == 422, "\(flag): \(reply.text)")
            #expect(reply.problem?.field == flag)
            #expect(try await member.get("/v1/teams/\(f.team)/tasks?\(flag)=true").status == 200)
            #expect(try await member.get("/v1/teams/\(f.team)/tasks?\(flag)=false").status == 200)
        }
        await f.stop()
    }
}
