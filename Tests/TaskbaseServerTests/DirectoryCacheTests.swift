import Foundation
import PGStore
import TaskCore
import TaskbaseServer
import TaskbaseTestSupport
import TaskbaseWire
import Testing

extension ServerFixture {
    /// A second server over the fixture's service (same users and tokens) that remembers the
    /// people task responses name for `directoryTTL`.
    func server(directoryTTL: Duration) throws -> APIServer {
        var options = APIOptions(secrets: Self.secrets, version: "test")
        options.directoryTTL = directoryTTL
        return try APIServer.start(service: service, options: options)
    }

    /// A client of `server` acting as `role`.
    func client(_ role: String, of server: APIServer) -> HTTPClient {
        HTTPClient(baseURL: server.baseURL, token: tokens[role])
    }
}

@Suite("The people a task response names, remembered per team, never beyond what the read allows")
struct DirectoryCacheTests {
    @Test("a member removed elsewhere gets 404 at once, though the team's people are remembered; outsiders 404", arguments: StoreKind.allCases)
    func removedMemberIsRefusedAtOnce(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store)
        let server = try f.server(directoryTTL: .seconds(600))
        let task = try await f.service.createTask(in: f.team, try TaskDraft(title: "Kept close", assignee: .id(f.viewer.id)), as: .id(f.member.id))
        let viewer = f.client("viewer", of: server)
        let read = try await viewer.get("/v1/tasks/\(task.key)")
        #expect(read.status == 200)
        #expect(try read.decode(TaskDocument.self).assignee.value == f.viewer.email)
        #expect(try await f.client("outsider", of: server).get("/v1/tasks/\(task.key)").status == 404)

        // Removed through the service, as another process would: this server learns nothing.
        try await f.service.removeMember(.id(f.viewer.id), from: f.team, as: .id(f.owner.id))
        let refused = try await viewer.get("/v1/tasks/\(task.key)")
        #expect(refused.status == 404)
        #expect(refused.problem?.code == "not_found")
        #expect(!String(decoding: refused.body, as: UTF8.self).contains(f.member.email))
        #expect(try await viewer.get("/v1/teams/\(f.team)/tasks").status == 404)
        #expect(try await viewer.get("/v1/tasks/\(task.key)/history").status == 404)
        await server.shutdown(grace: .seconds(2))
        await f.stop()
    }

    @Test("a former member's email is still rendered, whether the team's people are remembered or not", arguments: StoreKind.allCases)
    func formerMemberStillNamed(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store)
        let warm = try f.server(directoryTTL: .seconds(600))
        let task = try await f.service.createTask(in: f.team, try TaskDraft(title: "Left behind"), as: .id(f.member.id))
        #expect(try await f.client("owner", of: warm).get("/v1/tasks/\(task.key)").decode(TaskDocument.self).createdBy == f.member.email)

        // The owner still shares another team with the former member, and so sees them.
        let elsewhere = try await f.service.createTeam(key: "E" + f.team.rawValue, name: "Elsewhere", as: .id(f.owner.id)).key
        try await f.service.setRole(.viewer, for: .id(f.member.id), in: elsewhere, as: .id(f.owner.id))
        try await f.service.removeMember(.id(f.member.id), from: f.team, as: .id(f.owner.id))
        let cold = try f.server(directoryTTL: .seconds(600))
        for server in [warm, cold] {
            let owner = f.client("owner", of: server)
            #expect(try await owner.get("/v1/tasks/\(task.key)").decode(TaskDocument.self).createdBy == f.member.email)
            let page = try await owner.get("/v1/teams/\(f.team)/tasks").decode(TaskPageDocument.self)
            #expect(page.tasks.map(\.createdBy) == [f.member.email])
            await server.shutdown(grace: .seconds(2))
        }
        await f.stop()
    }

    @Test("a user's changed email shows once the TTL has passed, and at once after this server changes the team's members")
    func changedEmailShows() async throws {
        let f = try await ServerFixture.start(.postgres)
        let database = try await TestDatabases.shared.value
        let server = try f.server(directoryTTL: .milliseconds(300))
        let task = try await f.service.createTask(in: f.team, try TaskDraft(title: "Renamed", assignee: .id(f.viewer.id)), as: .id(f.member.id))
        let owner = f.client("owner", of: server)
        #expect(try await owner.get("/v1/tasks/\(task.key)").decode(TaskDocument.self).assignee.value == f.viewer.email)

        let changed = "changed." + f.viewer.email
        try await TestDatabases.execute("UPDATE users SET email = \(changed) WHERE id = \(f.viewer.id.rawValue)", on: database)
        try await Task.sleep(for: .milliseconds(400))
        #expect(try await owner.get("/v1/tasks/\(task.key)").decode(TaskDocument.self).assignee.value == changed)

        // Remembered for ten minutes, but a membership change through this server forgets the team.
        let patient = try f.server(directoryTTL: .seconds(600))
        let patientOwner = f.client("owner", of: patient)
        #expect(try await patientOwner.get("/v1/tasks/\(task.key)").decode(TaskDocument.self).assignee.value == changed)
        let again = "again." + f.viewer.email
        try await TestDatabases.execute("UPDATE users SET email = \(again) WHERE id = \(f.viewer.id.rawValue)", on: database)
        let role = try await patientOwner.send("PUT", "/v1/teams/\(f.team)/members/\(f.outsider.email)", json: #"{"role": "viewer"}"#)
        #expect(role.status == 201)
        #expect(try await patientOwner.get("/v1/tasks/\(task.key)").decode(TaskDocument.self).assignee.value == again)
        await patient.shutdown(grace: .seconds(2))
        await server.shutdown(grace: .seconds(2))
        await f.stop()
    }

    @Test("a user disabled by any process rings the token doorbell, and the server forgets the people it remembered")
    func doorbellForgets() async throws {
        let f = try await ServerFixture.start(.postgres)
        let server = try f.server(directoryTTL: .seconds(600))
        let task = try await f.service.createTask(in: f.team, try TaskDraft(title: "Rung", assignee: .id(f.viewer.id)), as: .id(f.member.id))
        let owner = f.client("owner", of: server)
        #expect(try await owner.get("/v1/tasks/\(task.key)").decode(TaskDocument.self).assignee.value == f.viewer.email)

        let changed = "rung." + f.viewer.email
        try await TestDatabases.execute(
            "UPDATE users SET email = \(changed) WHERE id = \(f.viewer.id.rawValue)", on: try await TestDatabases.shared.value)
        _ = try await f.service.setUserDisabled(.id(f.outsider.id), true)
        var seen = f.viewer.email
        let deadline = ContinuousClock.now + .seconds(10)
        while seen != changed, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            seen = try await owner.get("/v1/tasks/\(task.key)").decode(TaskDocument.self).assignee.value ?? ""
        }
        #expect(seen == changed)
        await server.shutdown(grace: .seconds(2))
        await f.stop()
    }
}
