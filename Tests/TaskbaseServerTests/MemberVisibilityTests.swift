import Foundation
import PGStore
import TaskCore
import TaskStorePG
import TaskbaseTestSupport
import TaskbaseWire
import Testing

@Suite("Who the API names: a member among the members, anyone else only as the reader may see them")
struct MemberVisibilityTests {
    /// A fixture over `kind`; Postgres served through a login that is only a member of
    /// `taskbase_app`, as taskserve is deployed (provisioned through the test's admin store).
    static func withFixture(_ kind: StoreKind, _ body: (ServerFixture) async throws -> Void) async throws {
        switch kind {
        case .memory:
            let f = try await ServerFixture.start(.memory)
            defer { Task { await f.stop() } }
            try await body(f)
        case .postgres:
            let admin = try await StoreKind.postgresStore.value
            let database = try await TestDatabases.shared.value
            try await TestLogin.with(memberOf: ["taskbase_app"]) { login in
                let runtime = try await PostgresTaskStore.open(config: login.config(for: database), maxConnections: 4, acquireTimeout: .seconds(30))
                let f = try await ServerFixture.start(store: admin, serving: runtime)
                do {
                    try await body(f)
                } catch {
                    await f.stop()
                    throw error
                }
                await f.stop()
            }
        }
    }

    @Test("a member is found by email in any case or by #id; anyone else is one 404 naming only what was sent", arguments: StoreKind.allCases)
    func memberLookup(store: StoreKind) async throws {
        try await Self.withFixture(store) { f in
            let viewer = f.client("viewer"), members = "/v1/teams/\(f.team)/members/"
            // Over the runtime login the route once looked the user up with no actor, which row
            // security answers with nobody: every member was 404.
            let byEmail = try await viewer.get(members + f.member.email.uppercased())
            #expect(byEmail.status == 200, "\(byEmail.text)")
            #expect(try byEmail.decode(MemberDocument.self).email == f.member.email)
            #expect(try await viewer.get(members + "%23\(f.member.id)").status == 200)
            // The memory store once named whoever held the id: a viewer could walk ids for emails.
            for path in [members + "%23\(f.outsider.id)", members + "%23\(Int64.max)"] {
                let refused = try await viewer.get(path)
                #expect(refused.status == 404 && !refused.text.contains(f.outsider.email), "\(path): \(refused.text)")
            }
            #expect(try await viewer.get(members + f.outsider.email).status == 404)
            let refused = try await viewer.get(members + "%23\(f.outsider.id)")
            #expect(refused.problem?.detail.contains("#\(f.outsider.id)") == true, "\(refused.text)")
        }
    }

    @Test(
        "a former member is an email to a reader who still shares a team with them and #id to one who does not, an owner too",
        arguments: StoreKind.allCases)
    func formerMembers(store: StoreKind) async throws {
        try await Self.withFixture(store) { f in
            let owner = f.client("owner"), viewer = f.client("viewer")
            let made = try await f.client("member").send("POST", "/v1/teams/\(f.team)/tasks", json: #"{"title": "Left behind"}"#)
            let key = try made.decode(TaskDocument.self).key
            #expect(try await owner.send("DELETE", "/v1/teams/\(f.team)/members/\(f.member.email)").status == 200)
            // Nobody shares a team with the former member any more. Owners once saw everyone:
            // owning a team of one's own then showed every account's address.
            let seenByViewer = try await viewer.get("/v1/tasks/\(key)").decode(TaskDocument.self)
            #expect(seenByViewer.createdBy == "#\(f.member.id)", "memory once told the viewer the email")
            #expect(try await owner.get("/v1/tasks/\(key)").decode(TaskDocument.self).createdBy == "#\(f.member.id)")
            // The owner adds them to another team by the address they know, and sees them again.
            let elsewhere = try await f.service.createTeam(key: "E" + f.team.rawValue, name: "Elsewhere", as: .id(f.owner.id)).key
            try await f.service.setRole(.viewer, for: .email(f.member.email), in: elsewhere, as: .id(f.owner.id))
            let seenByOwner = try await owner.get("/v1/tasks/\(key)").decode(TaskDocument.self)
            #expect(seenByOwner.createdBy == f.member.email, "Postgres over the runtime login once told nobody")
            let listed = try await viewer.get("/v1/teams/\(f.team)/tasks").decode(TaskPageDocument.self)
            #expect(listed.tasks.map(\.createdBy) == ["#\(f.member.id)"])
            let history = try await viewer.get("/v1/tasks/\(key)/history")
            #expect(history.status == 200 && !history.text.contains(f.member.email), "\(history.text)")
        }
    }

    @Test("anyone may own a team, but adding by #id reaches only team mates: walking ids reads no address", arguments: StoreKind.allCases)
    func addingByIDWalksNoAddresses(store: StoreKind) async throws {
        try await Self.withFixture(store) { f in
            // The attack: the outsider makes a team of their own (they own it, an owner once saw
            // everyone), then adds ids one by one and reads each added member's email back.
            let outsider = f.client("outsider")
            let key = "W" + f.team.rawValue
            #expect(try await outsider.send("POST", "/v1/teams", json: #"{"key": "\#(key)", "name": "Walker"}"#).status == 201)
            let members = "/v1/teams/\(key)/members/"
            for id in [f.owner.id, f.member.id, f.viewer.id] {
                let refused = try await outsider.send("PUT", members + "%23\(id)", json: #"{"role": "viewer"}"#)
                #expect(refused.status == 404 && refused.problem?.code == "not_found", "#\(id): \(refused.text)")
                #expect(![f.owner.email, f.member.email, f.viewer.email].contains { refused.text.contains($0) }, "\(refused.text)")
            }
            let listed = try await outsider.get("/v1/teams/\(key)/members")
            #expect(listed.status == 200 && !listed.text.contains(f.member.email), "\(listed.text)")
            // The address they know adds the person, as before; then the id names them too.
            let added = try await outsider.send("PUT", members + f.member.email.uppercased(), json: #"{"role": "viewer"}"#)
            #expect(added.status == 201, "\(added.text)")
            #expect(try await outsider.get(members + "%23\(f.member.id)").status == 200)
        }
    }

    @Test(
        "a member removed, or leaving, is unassigned as an edit: an ETag held before no longer matches; history says who",
        arguments: StoreKind.allCases)
    func removalUnassignsAsAnEdit(store: StoreKind) async throws {
        try await Self.withFixture(store) { f in
            // Postgres once cleared the assignee through the foreign key: the version stayed 1,
            // so a client's If-None-Match on "1" got 304 for a task whose assignee had changed.
            let owner = f.client("owner"), viewer = f.client("viewer")
            var keys: [String] = []
            for assignee in [f.member.email, f.viewer.email] {
                let made = try await owner.send("POST", "/v1/teams/\(f.team)/tasks", json: #"{"title": "Theirs", "assignee": "\#(assignee)"}"#)
                #expect(made.status == 201 && made.header("ETag") == #""1""#, "\(made.text)")
                keys.append(try made.decode(TaskDocument.self).key)
            }
            #expect(try await owner.send("DELETE", "/v1/teams/\(f.team)/members/\(f.member.email)").status == 200)
            #expect(try await viewer.send("DELETE", "/v1/teams/\(f.team)/members/\(f.viewer.email)").status == 200)
            // The viewer, gone, is #id to the owner, who shares no other team with them.
            for (key, actor) in zip(keys, [f.owner.email, "#\(f.viewer.id)"]) {
                let read = try await owner.get("/v1/tasks/\(key)", headers: ["If-None-Match": #""1""#])
                #expect(read.status == 200 && read.header("ETag") == #""2""#, "\(key): \(read.status) \(read.text)")
                let task = try read.decode(TaskDocument.self)
                #expect(task.assignee.value == nil && task.updatedBy == actor, "\(read.text)")
                let history = try await owner.get("/v1/tasks/\(key)/history")
                let last = try history.decode([HistoryDocument].self).last
                #expect(last?.version == 2 && last?.changes.map(\.field) == ["assignee"], "\(history.text)")
            }
        }
    }
}
