import Foundation
import TaskCore
import TaskStorePG
import PGStore
@testable import TaskbaseServer
import TaskbaseTestSupport
import TaskbaseWire
import Testing

@Suite("The HTTP API over both stores, through a real HTTP client")
struct APIRouteTests {
    /// The challenge of a bearer token that was sent and refused (RFC 6750 §3.1).
    static let invalidTokenChallenge =
        #"Bearer realm="taskbase", error="invalid_token", error_description="the token is unknown, expired or revoked, or its user is disabled""#

    /// RFC 6750 §3 and §3.1: a refused bearer token's challenge says `error="invalid_token"` and
    /// why; a request without one gets the bare challenge (no error code). Every 401 was bare.
    @Test("GET /v1/me answers the token's user; no token or an unknown one is 401 with the Bearer challenge", arguments: StoreKind.allCases)
    func me(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store)
        let me = try await f.client("member").get("/v1/me")
        #expect(me.status == 200)
        #expect(try me.decode(UserDocument.self).email == f.member.email)
        let (unknown, nonsense) = ("tb_" + String(repeating: "A", count: 43), "nonsense")
        for (client, challenge) in [
            (f.client(), #"Bearer realm="taskbase""#), (f.client().with(token: unknown), Self.invalidTokenChallenge),
            (f.client().with(token: nonsense), Self.invalidTokenChallenge),
        ] {
            let refused = try await client.get("/v1/me")
            #expect(refused.status == 401)
            #expect(refused.header("WWW-Authenticate") == challenge, "\(client.token ?? "no token")")
            #expect(refused.header("Content-Type") == "application/problem+json")
            #expect(refused.problem?.code == "unauthorized")
        }
        let basic = try await f.client().get("/v1/me", headers: ["Authorization": "Basic YTpi"])
        #expect(basic.status == 401 && basic.header("WWW-Authenticate") == #"Bearer realm="taskbase""#, "another scheme: the bare challenge")
        await f.stop()
    }

    @Test(
        "a task's whole life: 201 with Location and ETag, read, 304, merge patch, stale If-Match is 412 with the current ETag, delete",
        arguments: StoreKind.allCases)
    func taskLife(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store)
        let member = f.client("member")
        let created = try await member.send(
            "POST", "/v1/teams/\(f.team)/tasks",
            json:
                #"{"title": "Fix the login page", "priority": "high", "due_date": "2026-12-24", "assignee": "\#(f.member.email)", "category": "Web"}"#
        )
        #expect(created.status == 201)
        let task = try created.decode(TaskDocument.self)
        #expect(created.header("Location") == "/v1/tasks/\(task.key)")
        #expect(created.header("ETag") == "\"1\"")
        #expect(task.assignee.value == f.member.email)
        #expect(task.priority == "high")

        let read = try await f.client("viewer").get("/v1/tasks/\(task.key)")
        #expect(read.status == 200)
        #expect(try read.decode(TaskDocument.self) == task)
        let unchanged = try await f.client("viewer").get("/v1/tasks/\(task.key)", headers: ["If-None-Match": "\"1\""])
        #expect(unchanged.status == 304)
        #expect(unchanged.body.isEmpty)

        let patched = try await member.send(
            "PATCH", "/v1/tasks/\(task.key)", json: #"{"due_date": null, "status": "in_progress"}"#, headers: ["If-Match": "\"1\""])
        #expect(patched.status == 200)
        let after = try patched.decode(TaskDocument.self)
        #expect(after.dueDate.value == nil)
        #expect(after.category.value == "Web")
        #expect(after.status == "in_progress")
        #expect(patched.header("ETag") == "\"2\"")

        let stale = try await member.send("PATCH", "/v1/tasks/\(task.key)", json: #"{"title": "Overwrite"}"#, headers: ["If-Match": "\"1\""])
        #expect(stale.status == 412)
        #expect(stale.header("ETag") == "\"2\"")
        #expect(stale.problem?.taskError == .conflict(what: "task \(task.key)", currentVersion: 2))
        #expect(try await f.service.task(try TaskKey(parsing: task.key), as: .id(f.owner.id)).title == "Fix the login page")

        let staleDelete = try await member.send("DELETE", "/v1/tasks/\(task.key)", headers: ["If-Match": "\"1\""])
        #expect(staleDelete.status == 412)
        // If-Match compares strongly (RFC 9110 §13.1.1): the current version, sent weak, matches
        // nothing (it once wrote and deleted as "2" would).
        for method in ["PATCH", "DELETE"] {
            let weak = try await member.send(method, "/v1/tasks/\(task.key)", json: #"{"title": "Weak"}"#, headers: ["If-Match": #"W/"2""#])
            #expect(weak.status == 412 && weak.header("ETag") == "\"2\"", "\(method): \(weak.status) \(weak.text)")
        }
        let deleted = try await member.send("DELETE", "/v1/tasks/\(task.key)", headers: ["If-Match": "\"2\""])
        #expect(deleted.status == 204)
        #expect(try await member.get("/v1/tasks/\(task.key)").status == 404)
        await f.stop()
    }

    /// RFC 9110 §15.5.6: a 405 MUST carry `Allow` with every method the path supports. A GET
    /// route answers HEAD too; `Allow` said `GET` alone (`POST /v1/me`: `Allow: GET`).
    @Test("a 405's Allow names every method the path answers, HEAD beside GET, and OPTIONS")
    func allowNamesHead() async throws {
        let f = try await ServerFixture.start(.memory)
        let member = f.client("member")
        let cases: [(method: String, path: String, allowed: Set<String>)] = [
            ("POST", "/v1/me", ["GET", "HEAD", "OPTIONS"]),
            ("PUT", "/v1/tasks/\(f.team)-1", ["GET", "HEAD", "PATCH", "DELETE", "OPTIONS"]),
            ("DELETE", "/v1/teams", ["GET", "HEAD", "POST", "OPTIONS"]),
            ("GET", "/v1/teams/\(f.team)/imports", ["POST", "OPTIONS"]),
        ]
        for (method, path, allowed) in cases {
            let refused = try await member.send(method, path)
            let allow = refused.header("Allow").map { Set($0.components(separatedBy: ", ")) }
            #expect(refused.status == 405 && allow == allowed, "\(method) \(path): \(refused.status) \(refused.header("Allow") ?? "no Allow")")
            // Each method it names is answered, not refused 405.
            for named in allow ?? [] { #expect(try await member.send(named, path).status != 405, "\(named) \(path)") }
        }
        await f.stop()
    }

    /// RFC 9110 §9.1 and §15.6.2: a method the server does not recognize or implement is 501,
    /// on any path; 405 with `Allow` stays for a method it takes on other paths (OPTIONS among
    /// them, for CORS preflights). `FOO /v1/me` was 405 with `Allow: GET, HEAD`.
    @Test("a method no route takes is 501 not_implemented on any path; one taken elsewhere stays 405 with Allow")
    func unimplementedMethods() async throws {
        let f = try await ServerFixture.start(.memory)
        let member = f.client("member")
        for (method, path) in [("FOO", "/v1/me"), ("TRACE", "/v1/tasks/\(f.team)-1"), ("QUERY", "/v1/teams"), ("FOO", "/v2/nothing")] {
            let refused = try await member.send(method, path)
            #expect(refused.status == 501, "\(method) \(path): \(refused.status) \(refused.text)")
            #expect(refused.problem?.code == "not_implemented" && refused.header("Content-Type") == "application/problem+json")
            #expect(refused.header("Allow") == nil, "\(method) \(path)")
            #expect(refused.problem?.detail.hasSuffix("it takes GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS") == true, "\(refused.text)")
        }
        let wrong = try await member.send("POST", "/v1/me")
        #expect(wrong.status == 405 && wrong.header("Allow") == "GET, HEAD, OPTIONS", "\(wrong.status) \(wrong.text)")
        await f.stop()
    }

    /// RFC 9110 §9.3.7 and RFC 5789 §3.1: OPTIONS says what a path takes. It was 405 (and
    /// `Allow` did not name OPTIONS), so `curl -X OPTIONS -i` told a client nothing it could use.
    @Test("OPTIONS on a path is 204 with Allow, and Accept-Patch where PATCH is taken; no token, and no hint whether the thing exists")
    func optionsSaysWhatAPathTakes() async throws {
        let f = try await ServerFixture.start(.memory)
        let anyone = f.client()
        let patchTypes = "application/merge-patch+json, application/json"
        let cases: [(path: String, allow: String, acceptPatch: String?)] = [
            ("/v1/tasks/\(f.team)-1", "GET, HEAD, PATCH, DELETE, OPTIONS", patchTypes),
            // A task no one made, of a team that is not there: answered alike (the pattern's).
            ("/v1/tasks/NOPE-999", "GET, HEAD, PATCH, DELETE, OPTIONS", patchTypes),
            ("/v1/teams/\(f.team)", "GET, HEAD, PATCH, DELETE, OPTIONS", patchTypes),
            ("/v1/me", "GET, HEAD, OPTIONS", nil),
            ("/v1/teams", "GET, HEAD, POST, OPTIONS", nil),
        ]
        for (path, allow, acceptPatch) in cases {
            let answer = try await anyone.send("OPTIONS", path)
            #expect(answer.status == 204 && answer.text.isEmpty, "\(path): \(answer.status) \(answer.text)")
            #expect(answer.header("Allow") == allow, "\(path): \(answer.header("Allow") ?? "no Allow")")
            #expect(answer.header("Accept-Patch") == acceptPatch, "\(path): \(answer.header("Accept-Patch") ?? "no Accept-Patch")")
            // Every method it names is answered, none refused 405.
            for method in allow.components(separatedBy: ", ") {
                #expect(try await f.client("member").send(method, path).status != 405, "\(method) \(path)")
            }
        }
        #expect(try await anyone.send("OPTIONS", "/v2/nothing").status == 404)
        await f.stop()
    }

    @Test("an empty segment is no route: PATCH or DELETE /v1/teams//summary leaves the team SUMMARY alone; a trailing slash is forgiven")
    func emptySegments() async throws {
        let f = try await ServerFixture.start(.memory)
        let owner = f.client("owner")
        #expect(try await owner.send("POST", "/v1/teams", json: #"{"key": "SUMMARY", "name": "Summary"}"#).status == 201)
        // A client whose team variable is empty: these were once /v1/teams/{team} for SUMMARY.
        let renamed = try await owner.send("PATCH", "/v1/teams//summary", json: #"{"name": "Renamed by accident"}"#)
        #expect(renamed.status == 404, "\(renamed.text)")
        let deleted = try await owner.send("DELETE", "/v1/teams//summary")
        #expect(deleted.status == 404, "\(deleted.text)")
        let team = try await owner.get("/v1/teams/SUMMARY")
        #expect(team.status == 200 && team.text.contains(#""name":"Summary""#), "\(team.text)")
        #expect(try await owner.get("/v1/teams//tasks").status == 404)
        #expect(try await owner.get("//v1/me").status == 404)
        #expect(try await owner.get("/v1/teams/\(f.team)/").status == 200, "a trailing slash is forgiven")
        await f.stop()
    }

    @Test("an escaped slash stays in its segment (T%2Fmembers%2FU is no team, never T's member U); bad escapes name nothing; queries are text")
    func escapedSegments() async throws {
        let f = try await ServerFixture.start(.memory)
        let owner = f.client("owner")
        let viewer = "/v1/teams/\(f.team)/members/\(f.viewer.email)"
        // A client that escapes a value it puts in one segment (a team key from elsewhere):
        // decoded before the split, these were CORE's member list and the viewer's removal.
        #expect(try await owner.get("/v1/teams/\(f.team)%2Fmembers").status == 404)
        let removed = try await owner.send("DELETE", "/v1/teams/\(f.team)%2Fmembers%2F\(f.viewer.email)")
        #expect(removed.status == 404, "\(removed.text)")
        #expect(try await owner.get(viewer).status == 200, "the viewer is still a member")
        // An escaped ordinary character still means itself (%53 is S, %40 is @).
        let escapedKey = "%" + String(f.team.rawValue.utf8.first!, radix: 16) + f.team.rawValue.dropFirst()
        #expect(try await owner.get("/v1/teams/\(escapedKey)/members/\(f.viewer.email.replacingOccurrences(of: "@", with: "%40"))").status == 200)
        // Sent byte for byte: a NUL (once the end of the C string, so /v1/teams/T), a malformed
        // escape, bytes that are not UTF-8.
        let token = try #require(f.tokens["owner"])
        for path in ["/v1/teams/\(f.team)%00/members", "/v1/teams/\(f.team)%zz", "/v1/teams/\(f.team)%FF%FE", "/v1/teams/\(f.team)%2"] {
            let connection = try RawConnection(port: f.server.http.port)
            connection.get(path, headers: ["Authorization": "Bearer \(token)", "Connection": "close"])
            _ = await connection.readUntilClosed()
            #expect(connection.text.hasPrefix("HTTP/1.1 404 "), "\(path): \(connection.text)")
        }
        // A query value is text too: a NUL once cut it short (assignee=viewer%00x filtered on
        // the viewer), and bytes that are not UTF-8 became U+FFFD.
        let tasks = "/v1/teams/\(f.team)/tasks"
        let cut = try await owner.get("\(tasks)?assignee=\(f.viewer.email)%00x")
        #expect(cut.status == 422 && cut.problem?.field == "assignee" && cut.text.contains("NUL"), "\(cut.text)")
        #expect(try await owner.get("\(tasks)?category=%FF%FE").problem?.field == "category")
        #expect(try await owner.get("\(tasks)?assignee=\(f.viewer.email.replacingOccurrences(of: "@", with: "%40"))").status == 200)
        await f.stop()
    }

    @Test("viewers read but get 403 on writes; outsiders get 404 for everything, exactly as for what does not exist", arguments: StoreKind.allCases)
    func rolesAndOutsiders(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store)
        let task = try await f.service.createTask(in: f.team, try TaskDraft(title: "Secret"), as: .id(f.member.id))
        let viewer = f.client("viewer"), outsider = f.client("outsider")
        let write = try await viewer.send("PATCH", "/v1/tasks/\(task.key)", json: #"{"title": "x"}"#)
        #expect(write.status == 403)
        #expect(write.problem?.code == "permission_denied")
        #expect(try await viewer.send("POST", "/v1/teams/\(f.team)/tasks", json: #"{"title": "x"}"#).status == 403)
        #expect(try await viewer.send("DELETE", "/v1/tasks/\(task.key)").status == 403)
        #expect(try await viewer.get("/v1/teams/\(f.team)/summary").status == 200)

        let hidden = try await outsider.get("/v1/tasks/\(task.key)")
        let missing = try await outsider.get("/v1/tasks/\(f.team)-999")
        #expect(hidden.status == 404)
        #expect(missing.status == 404)
        // Alike but for the name asked for: an outsider cannot tell a team's task from none.
        let (hiddenProblem, missingProblem) = (try #require(hidden.problem), try #require(missing.problem))
        #expect(hiddenProblem.code == "not_found" && missingProblem.code == "not_found")
        #expect(hiddenProblem.title == missingProblem.title)
        #expect(hiddenProblem.what == "task \(task.key)" && missingProblem.what == "task \(f.team)-999")
        #expect(
            hiddenProblem.detail.replacingOccurrences(of: "\(task.key)", with: "KEY")
                == missingProblem.detail.replacingOccurrences(of: "\(f.team)-999", with: "KEY"))
        // The same for each of the team's routes, against a team that does not exist.
        let nowhere = "N" + String(f.team.rawValue.dropFirst())
        for (method, path) in [
            ("GET", "/v1/teams/{team}"), ("GET", "/v1/teams/{team}/tasks"), ("GET", "/v1/teams/{team}/members"),
            ("GET", "/v1/teams/{team}/summary"), ("GET", "/v1/tasks/{task}/history"), ("DELETE", "/v1/tasks/{task}"),
            ("DELETE", "/v1/teams/{team}"), ("GET", "/v1/teams/{team}/events"), ("GET", "/v1/teams/{team}/export"),
        ] {
            func ask(_ team: String, _ task: String) async throws -> (status: Int, problem: ProblemDocument?) {
                let reply = try await outsider.send(
                    method, path.replacingOccurrences(of: "{team}", with: team).replacingOccurrences(of: "{task}", with: task))
                return (reply.status, reply.problem)
            }
            let (hidden, missing) = (try await ask(f.team.rawValue, "\(task.key)"), try await ask(nowhere, "\(nowhere)-\(task.key.number)"))
            #expect(hidden.status == 404 && missing.status == 404, "\(method) \(path)")
            #expect(hidden.problem?.code == "not_found" && hidden.problem?.code == missing.problem?.code, "\(method) \(path)")
            #expect(hidden.problem?.title == missing.problem?.title, "\(method) \(path)")
            let masked = hidden.problem?.detail.replacingOccurrences(of: f.team.rawValue, with: "TEAM")
            #expect(masked != nil && masked == missing.problem?.detail.replacingOccurrences(of: nowhere, with: "TEAM"), "\(method) \(path)")
        }
        #expect(try await outsider.send("PATCH", "/v1/tasks/\(task.key)", json: #"{"title": "x"}"#).status == 404)
        #expect(try await f.service.task(task.key, as: .id(f.owner.id)) == task)
        await f.stop()
    }

    @Test(
        "teams and members: create (201), list, show, rename, summary, add a member (201) and change a role (200), remove, delete; admins' limits hold",
        arguments: StoreKind.allCases)
    func teamsAndMembers(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store)
        let owner = f.client("owner")
        let key = "N" + String(f.team.rawValue.dropFirst().prefix(6))
        let created = try await owner.send("POST", "/v1/teams", json: #"{"key": "\#(key.lowercased())", "name": "New team"}"#)
        #expect(created.status == 201)
        #expect(created.header("Location") == "/v1/teams/\(key)")
        #expect(try created.decode(TeamDocument.self).role == "owner")
        #expect(try await owner.send("POST", "/v1/teams", json: #"{"key": "\#(key)", "name": "Again"}"#).status == 409)
        let teams = try await owner.get("/v1/teams").decode([TeamDocument].self)
        #expect(Set(teams.map(\.key)) == [f.team.rawValue, key])
        let renamed = try await owner.send("PATCH", "/v1/teams/\(key)", json: #"{"name": "Renamed"}"#)
        #expect(try renamed.decode(TeamDocument.self).name == "Renamed")
        #expect(try await f.client("member").send("PATCH", "/v1/teams/\(f.team)", json: #"{"name": "No"}"#).status == 403)

        // A PUT that adds a member made the resource: 201 (RFC 9110 §9.3.4); one that changes a
        // role, 200. Before, both were 200.
        let put = try await owner.send("PUT", "/v1/teams/\(key)/members/\(f.viewer.email)", json: #"{"role": "member"}"#)
        #expect(put.status == 201, "\(put.status) \(put.text)")
        #expect(try put.decode(MemberDocument.self).role == "member")
        let changed = try await owner.send("PUT", "/v1/teams/\(key)/members/\(f.viewer.email)", json: #"{"role": "admin"}"#)
        #expect(changed.status == 200, "\(changed.status) \(changed.text)")
        #expect(try changed.decode(MemberDocument.self).role == "admin")
        let same = try await owner.send("PUT", "/v1/teams/\(key)/members/\(f.viewer.email)", json: #"{"role": "admin"}"#)
        #expect(same.status == 200, "\(same.status) \(same.text)")
        let one = try await owner.get("/v1/teams/\(key)/members/\(f.viewer.email)")
        #expect(try one.decode(MemberDocument.self).email == f.viewer.email)
        #expect(try await owner.get("/v1/teams/\(key)/members/\(f.outsider.email)").status == 404)
        let admin = f.client("viewer")
        let promote = try await admin.send("PUT", "/v1/teams/\(key)/members/\(f.outsider.email)", json: #"{"role": "owner"}"#)
        #expect(promote.status == 403)
        #expect(try await admin.send("PUT", "/v1/teams/\(key)/members/\(f.outsider.email)", json: #"{"role": "member"}"#).status == 201)
        #expect(try await owner.get("/v1/teams/\(key)/members").decode([MemberDocument].self).count == 3)
        #expect(try await owner.send("PUT", "/v1/teams/\(key)/members/\(f.outsider.email)", json: #"{"role": "boss"}"#).status == 422)
        #expect(try await owner.send("DELETE", "/v1/teams/\(key)/members/\(f.outsider.email)").status == 200)
        // The last enabled owner cannot leave: the refusal names the user taken out, not a role nobody sent.
        let lastOwner = try await owner.send("DELETE", "/v1/teams/\(key)/members/\(f.owner.email)")
        #expect(lastOwner.status == 422)
        #expect(lastOwner.problem?.field == "user")

        let summary = try await owner.get("/v1/teams/\(f.team)/summary").decode(SummaryDocument.self)
        #expect(summary.team.key == f.team.rawValue)
        #expect(summary.byStatus.keys.sorted() == ["done", "in_progress", "open"])
        #expect(try await owner.send("DELETE", "/v1/teams/\(key)").status == 204)
        #expect(try await owner.get("/v1/teams/\(key)").status == 404)
        await f.stop()
    }

    @Test(
        "removing a member answers 200: the team, the user as member documents have them, and how many of their tasks in the team it unassigned",
        arguments: StoreKind.allCases)
    func removalCountsUnassigned(store: StoreKind) async throws {
        // The route answered 204, saying nothing of the tasks that lost their assignee.
        let f = try await ServerFixture.start(store)
        let owner = UserRef.id(f.owner.id)
        let elsewhere = try await f.service.createTeam(key: "E" + String(f.team.rawValue.dropFirst().prefix(6)), name: "Elsewhere", as: owner).key
        for person in [f.member, f.viewer] { try await f.service.setRole(.member, for: .id(person.id), in: elsewhere, as: owner) }
        for (title, assignee, team) in [
            ("One", f.member, f.team), ("Two", f.member, f.team), ("Viewer's", f.viewer, f.team), ("Kept", f.member, elsewhere),
        ] {
            _ = try await f.service.createTask(in: team, try TaskDraft(title: title, assignee: .id(assignee.id)), as: owner)
        }
        let removed = try await f.client("owner").send("DELETE", "/v1/teams/\(f.team.rawValue.lowercased())/members/\(f.member.email)")
        #expect(removed.status == 200)
        let body = try JSONSerialization.jsonObject(with: removed.body) as? [String: Any] ?? [:]
        #expect(
            body["team"] as? String == f.team.rawValue && body["user_id"] as? Int64 == f.member.id.rawValue && body["unassigned_tasks"] as? Int == 2)
        #expect(Set(body.keys) == ["team", "user_id", "email", "display_name", "disabled", "created_at", "unassigned_tasks"])
        #expect(try removed.decode(MemberRemovalDocument.self).removal() == MemberRemoval(team: f.team, user: f.member, unassignedTasks: 2))
        // Leaving on one's own counts alike; the member's task in the other team stays theirs.
        let left = try await f.client("viewer").send("DELETE", "/v1/teams/\(f.team)/members/%23\(f.viewer.id.rawValue)")
        #expect(try left.decode(MemberRemovalDocument.self).unassignedTasks == 1)
        let kept = try await f.service.listTasks(in: elsewhere, TaskQuery(), as: owner).tasks
        #expect(kept.map(\.assigneeID) == [f.member.id])
        await f.stop()
    }

    @Test("the task list takes taskctl's filters and pages by cursor with next_cursor and a Link header", arguments: StoreKind.allCases)
    func listAndPages(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store)
        for index in 1...5 {
            _ = try await f.service.createTask(
                in: f.team,
                try TaskDraft(title: "Task \(index)", status: index == 5 ? .done : .open, category: index.isMultiple(of: 2) ? "Even" : nil),
                as: .id(f.member.id))
        }
        let client = f.client("viewer")
        let first = try await client.get("/v1/teams/\(f.team)/tasks?limit=2&status=open")
        let page = try first.decode(TaskPageDocument.self)
        #expect(page.tasks.map(\.number) == [1, 2])
        let cursor = try #require(page.nextCursor.value)
        let link = try #require(first.header("Link"))
        #expect(link.hasSuffix(#">; rel="next""#))
        let nextPath = String(link.dropFirst().prefix { $0 != ">" })
        let second = try await client.get(nextPath).decode(TaskPageDocument.self)
        #expect(second.tasks.map(\.number) == [3, 4])
        #expect(try await client.get("/v1/teams/\(f.team)/tasks?limit=2&status=open&after=\(cursor)").decode(TaskPageDocument.self) == second)
        let uncategorized = try await client.get("/v1/teams/\(f.team)/tasks?uncategorized=true").decode(TaskPageDocument.self)
        #expect(uncategorized.tasks.map(\.number) == [1, 3, 5])
        let even = try await client.get("/v1/teams/\(f.team)/tasks?category=even&sort=number&desc=true").decode(TaskPageDocument.self)
        #expect(even.tasks.map(\.number) == [4, 2])
        #expect(try await client.get("/v1/teams/\(f.team)/tasks?colour=red").problem?.field == "colour")
        #expect(try await client.get("/v1/teams/\(f.team)/tasks?limit=0").status == 422)
        #expect(try await client.get("/v1/teams/\(f.team)/tasks?status=finished").problem?.field == "status")
        // A refused cursor names the parameter sent, `after`, as every other refusal here
        // does (it said `cursor`, which no request holds): one that is no cursor, and one of
        // a list in another order.
        for query in ["after=garbage", "after=\(cursor)&sort=due"] {
            let refused = try await client.get("/v1/teams/\(f.team)/tasks?\(query)")
            #expect(refused.status == 422 && refused.problem?.field == "after", "\(query): \(refused.text)")
            #expect(refused.problem?.detail.hasPrefix("invalid after: ") == true, "\(refused.text)")
        }
        await f.stop()
    }

    @Test("a cursor walk while others insert sees every task that existed before, once", arguments: StoreKind.allCases)
    func cursorWalkDuringInserts(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store)
        for index in 1...40 { _ = try await f.service.createTask(in: f.team, try TaskDraft(title: "Before \(index)"), as: .id(f.member.id)) }
        let writer = Task {
            for index in 1...40 { _ = try await f.service.createTask(in: f.team, try TaskDraft(title: "During \(index)"), as: .id(f.member.id)) }
        }
        var seen: [Int64] = []
        var path: String? = "/v1/teams/\(f.team)/tasks?limit=7"
        while let next = path {
            let reply = try await f.client("viewer").get(next)
            let page = try reply.decode(TaskPageDocument.self)
            seen += page.tasks.map(\.number)
            path = reply.nextPath
        }
        try await writer.value
        #expect(Set(seen).count == seen.count)
        #expect(Set(1...40).isSubset(of: Set(seen)))
        #expect(seen == seen.sorted())
        // A page longer than APIHandlers.loopPageLimit is read and written off the I/O thread:
        // the same walk in pages of 101 sees the same tasks.
        let long = try await f.client("viewer").get("/v1/teams/\(f.team)/tasks?limit=101").decode(TaskPageDocument.self)
        #expect(APIHandlers.loopPageLimit < 101 && long.tasks.map(\.number) == Array(1...80) && long.nextCursor.value == nil)
        await f.stop()
    }

    @Test("history lists each version with the actor's email", arguments: StoreKind.allCases)
    func history(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store)
        let task = try await f.service.createTask(in: f.team, try TaskDraft(title: "Tracked"), as: .id(f.member.id))
        _ = try await f.service.completeTask(task.key, as: .id(f.owner.id))
        let entries = try await f.client("viewer").get("/v1/tasks/\(task.key)/history").decode([HistoryDocument].self)
        #expect(entries.map(\.version) == [1, 2])
        #expect(entries.map(\.actor) == [f.member.email, f.owner.email])
        #expect(entries[1].changes.first?.field == "status")
        await f.stop()
    }

    @Test(
        "history comes in pages of `limit` (default 100) with a Link header to the next; a bad limit, cursor or parameter is 422",
        arguments: StoreKind.allCases)
    func historyPages(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store)
        let task = try await f.service.createTask(in: f.team, try TaskDraft(title: "Busy"), as: .id(f.member.id))
        // The default page (100) needs 105 entries: on the memory store, where they cost nothing;
        // on Postgres 7 entries and a small limit walk the same pages (the parallel suite is busy).
        let entries: Int64 = store == .memory ? 105 : 7
        for round in 1..<entries {
            _ = try await f.service.updateTask(task.key, try TaskChanges(title: "Busy \(round)"), expectedVersion: nil, as: .id(f.member.id))
        }
        let viewer = f.client("viewer")
        if store == .memory {
            let first = try await viewer.get("/v1/tasks/\(task.key)/history")
            #expect(try first.decode([HistoryDocument].self).map(\.version) == Array(1...100))
            let link = try #require(first.header("Link"))
            #expect(link.hasPrefix("</v1/tasks/\(task.key)/history?after=") && link.hasSuffix(">; rel=\"next\""), "\(link)")
            let last = try await viewer.get(String(link.dropFirst().prefix { $0 != ">" }))
            #expect(try last.decode([HistoryDocument].self).map(\.version) == Array(101...105))
            #expect(last.header("Link") == nil)
        }
        // The Link keeps the page size asked for.
        var path: String? = "/v1/tasks/\(task.key)/history?limit=\(store == .memory ? 40 : 3)", versions: [Int64] = [], pages = 0
        while let next = path {
            let reply = try await viewer.get(next)
            versions += try reply.decode([HistoryDocument].self).map(\.version)
            path = reply.nextPath
            pages += 1
        }
        #expect(versions == Array(1...entries))
        #expect(pages == 3)
        for (query, field) in [
            ("limit=0", "limit"), ("limit=1001", "limit"), ("limit=ten", "limit"), ("after=nonsense", "after"), ("sort=desc", "sort"),
        ] {
            let refused = try await viewer.get("/v1/tasks/\(task.key)/history?\(query)")
            #expect(refused.status == 422 && refused.problem?.field == field, "\(query): \(refused.text)")
        }
        await f.stop()
    }

    @Test("a deleted task's history is still 200 to the team, ending with who deleted it, and 404 to an outsider", arguments: StoreKind.allCases)
    func historyOfDeletedTask(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store)
        let task = try await f.service.createTask(in: f.team, try TaskDraft(title: "Doomed"), as: .id(f.member.id))
        _ = try await f.service.completeTask(task.key, as: .id(f.owner.id))
        #expect(try await f.client("member").send("DELETE", "/v1/tasks/\(task.key)").status == 204)
        #expect(try await f.client("viewer").get("/v1/tasks/\(task.key)").status == 404)
        let entries = try await f.client("viewer").get("/v1/tasks/\(task.key)/history").decode([HistoryDocument].self)
        #expect(entries.map(\.version) == [1, 2, 2])
        #expect(entries.map(\.kind) == ["created", "updated", "deleted"])
        #expect(entries.last?.actor == f.member.email && entries.last?.changes == [])
        #expect(entries.last.map { $0.at >= entries[1].at } == true)
        #expect(try await f.client("outsider").get("/v1/tasks/\(task.key)/history").status == 404)
        await f.stop()
    }

    @Test(
        "a team name holding a control character or a bidi control is refused (422 naming name and the code point): no team made, none renamed",
        arguments: StoreKind.allCases)
    func hiddenControlsInTeamNames(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store)
        let owner = f.client("owner")
        let key = "C" + String(f.team.rawValue.dropFirst().prefix(6))
        for (name, code) in [("Core\u{1B}[2J", "U+001B"), ("Pay\u{202E}lanif", "U+202E"), ("\u{2066}Ops\u{2069}", "U+2066")] {
            // JSON escapes them (\u001b); the server reads the character itself.
            let body = String(decoding: try JSONSerialization.data(withJSONObject: ["key": key, "name": name]), as: UTF8.self)
            let created = try await owner.send("POST", "/v1/teams", json: body)
            #expect(created.status == 422 && created.problem?.field == "name", "\(created.status) \(created.text)")
            #expect(created.problem?.detail.contains(code) == true, "\(created.text)")
            let renamed = try await owner.send(
                "PATCH", "/v1/teams/\(f.team)", json: String(decoding: try JSONSerialization.data(withJSONObject: ["name": name]), as: UTF8.self))
            #expect(renamed.status == 422 && renamed.problem?.field == "name", "\(renamed.status) \(renamed.text)")
        }
        #expect(try await owner.get("/v1/teams/\(key)").status == 404)
        #expect(try await owner.get("/v1/teams/\(f.team)").decode(TeamDocument.self).name == "Server tests")
        await f.stop()
    }

    @Test(
        "bad bodies: malformed JSON and invalid UTF-8 are 400, a wrong or missing field is 422 naming it in words, another media type 415, nothing is written",
        arguments: StoreKind.allCases)
    func badBodies(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store)
        let member = f.client("member")
        let path = "/v1/teams/\(f.team)/tasks"
        let malformed = try await member.send("POST", path, json: #"{"title": "#)
        #expect(malformed.status == 400)
        #expect(malformed.problem?.field == "body")
        let invalidUTF8 = try await member.send(
            "POST", path, body: Data([0x7B, 0x22, 0x74, 0x69, 0x74, 0x6C, 0x65, 0x22, 0x3A, 0x22, 0xFF, 0xFE, 0x22, 0x7D]),
            headers: ["Content-Type": "application/json"])
        #expect(invalidUTF8.status == 400)
        let wrongType = try await member.send("POST", path, json: #"{"title": 5}"#)
        #expect(wrongType.status == 422)
        #expect(wrongType.problem?.field == "title")
        #expect(wrongType.problem?.detail == "invalid title: the title must be a string")
        let missing = try await member.send("POST", path, json: #"{"notes": "no title"}"#)
        #expect(missing.status == 422 && missing.problem?.code == "validation" && missing.problem?.field == "title")
        #expect(missing.problem?.detail == "invalid title: the title is required", "says what is wrong in words")
        #expect(malformed.problem?.detail == "invalid body: the body is not valid JSON (UTF-8) of the documented shape")
        let blank = try await member.send("POST", path, json: #"{"title": "   "}"#)
        #expect(blank.problem?.taskError == .validation(field: "title", reason: try #require(blank.problem?.reason)))
        #expect(try await member.send("POST", path, json: #"{"title": "x", "due_date": "tomorrow"}"#).problem?.field == "due_date")
        // A field given twice was applied as its first value while a proxy or a log in front
        // (Python, JavaScript, JSONSerialization) read the last: now refused, naming it.
        let twice = try await member.send("POST", path, json: #"{"title": "What a proxy reads", "title": "What was applied"}"#)
        #expect(twice.status == 422 && twice.problem?.field == "title", "\(twice.text)")
        #expect(twice.problem?.detail == "invalid title: the title is given twice: send each field once")
        // The same in UTF-16, which the decoders read too: it passed the check (its names never
        // decoded alone) and was created with the first title.
        var utf16 = Data([0xFF, 0xFE])
        utf16.append(#"{"t\u0069tle": "What a proxy reads", "title": "What was applied"}"#.data(using: .utf16LittleEndian)!)
        let wide = try await member.send("POST", path, body: utf16, headers: ["Content-Type": "application/json"])
        #expect(wide.status == 400 && wide.problem?.field == "body" && wide.problem?.reason?.contains("not UTF-8") == true, "\(wide.text)")
        #expect(try await f.service.listTasks(in: f.team, as: .id(f.member.id)).tasks.isEmpty)
        #expect(try await member.send("PUT", path, json: "{}").status == 405)
        #expect(try await member.get("/v2/nothing").status == 404)
        #expect(try await member.send("PATCH", "/v1/tasks/\(f.team)-1", json: "{}", headers: ["Content-Type": "text/plain"]).status == 415)
        // A JSON body sent as something else (curl -d says form data) is 415 naming the type to
        // send, on every route that takes one, before anything is written; the type's case and
        // parameters do not matter, and RFC 6902's JSON Patch is not a merge patch.
        let form = try await member.send(
            "POST", path, json: #"{"title": "Form"}"#, headers: ["Content-Type": "application/x-www-form-urlencoded"])
        #expect(form.status == 415 && form.problem?.code == "unsupported_media_type")
        #expect(form.problem?.detail.contains("send Content-Type: application/json") == true, "\(form.text)")
        for (method, route) in [
            ("POST", "/v1/teams"), ("PATCH", "/v1/teams/\(f.team)"), ("PUT", "/v1/teams/\(f.team)/members/\(f.viewer.email)"),
            ("POST", "/v1/me/tokens"),
        ] {
            let refused = try await member.send(method, route, json: "{}", headers: ["Content-Type": "text/plain"])
            #expect(refused.status == 415, "\(method) \(route)")
            // RFC 5789 §2.2: a PATCH's 415 names the patch documents it takes; no other 415 does.
            #expect(refused.header("Accept-Patch") == (method == "PATCH" ? Self.patchTypes : nil), "\(method) \(route)")
        }
        #expect(try await f.service.listTasks(in: f.team, as: .id(f.member.id)).tasks.isEmpty)
        let cased = try await member.send("POST", path, json: #"{"title": "Cased"}"#, headers: ["Content-Type": "Application/JSON; charset=UTF-8"])
        #expect(cased.status == 201)
        let patched = try await member.send(
            "PATCH", "/v1/tasks/\(f.team)-\(try cased.decode(TaskDocument.self).number)", json: #"{"title": "Merged"}"#,
            headers: ["Content-Type": "Application/Merge-Patch+JSON; charset=utf-8"])
        #expect(patched.status == 200)
        let jsonPatch = try await member.send(
            "PATCH", "/v1/tasks/\(f.team)-1", json: #"[{"op": "replace", "path": "/title", "value": "x"}]"#,
            headers: ["Content-Type": "application/json-patch+json"])
        #expect(jsonPatch.status == 415 && jsonPatch.header("Accept-Patch") == Self.patchTypes, "\(jsonPatch.headers)")
        let gzipped = try await member.send(
            "PATCH", "/v1/tasks/\(f.team)-1", json: #"{"title": "x"}"#, headers: ["Content-Encoding": "gzip"])
        #expect(gzipped.status == 415 && gzipped.header("Accept-Patch") == Self.patchTypes, "a compressed patch: \(gzipped.headers)")
        await f.stop()
    }

    /// What a PATCH route's 415 says it takes, in `Accept-Patch`.
    static let patchTypes = "application/merge-patch+json, application/json"

    @Test("a body over the cap is 413 and writes nothing", arguments: StoreKind.allCases)
    func oversizeBody(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store, limits: HTTPServerLimits(maxBodyBytes: 1_000))
        let big = #"{"title": "big", "notes": "\#(String(repeating: "x", count: 5_000))"}"#
        let reply = try await f.client("member").send("POST", "/v1/teams/\(f.team)/tasks", json: big)
        #expect(reply.status == 413)
        #expect(try await f.service.listTasks(in: f.team, as: .id(f.member.id)).tasks.isEmpty)
        await f.stop()
    }

    @Test(
        "Idempotency-Key: a retry gets the first response and makes nothing new; the key with another body is refused", arguments: StoreKind.allCases)
    func idempotency(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store)
        let member = f.client("member")
        let path = "/v1/teams/\(f.team)/tasks"
        let first = try await member.send("POST", path, json: #"{"title": "Once"}"#, headers: ["Idempotency-Key": "k-1"])
        let retry = try await member.send("POST", path, json: #"{"title": "Once"}"#, headers: ["Idempotency-Key": "k-1"])
        #expect(first.status == 201)
        #expect(retry.status == 201)
        #expect(retry.body == first.body)
        #expect(retry.header("Location") == first.header("Location"))
        let reused = try await member.send("POST", path, json: #"{"title": "Twice"}"#, headers: ["Idempotency-Key": "k-1"])
        #expect(reused.status == 422)
        #expect(reused.problem?.code == "idempotency_key_reused")
        #expect(try await f.service.listTasks(in: f.team, as: .id(f.member.id)).tasks.count == 1)
        let otherUser = try await f.client("owner").send("POST", path, json: #"{"title": "Once"}"#, headers: ["Idempotency-Key": "k-1"])
        #expect(otherUser.status == 201)
        // The query counts as written: one option "on-conflict=skip&dry-run=true" is not the two
        // options of the first import, though both decode to the same characters.
        let csv = Data("Title\nImported once\n".utf8)
        let imports = "/v1/teams/\(f.team)/imports"
        let dry = try await member.send(
            "POST", imports + "?on-conflict=skip&dry-run=true", body: csv, headers: ["Idempotency-Key": "k-2", "Content-Type": "text/csv"])
        #expect(dry.status == 200, "\(dry.text)")
        let other = try await member.send(
            "POST", imports + "?on-conflict=skip%26dry-run%3Dtrue", body: csv, headers: ["Idempotency-Key": "k-2", "Content-Type": "text/csv"])
        #expect(other.problem?.code == "idempotency_key_reused", "\(other.status) \(other.text)")
        // The same bytes declared in another charset are another request (once the first
        // Latin-1 answer was replayed to the UTF-8 one).
        let accented = Data([0x54, 0x69, 0x74, 0x6C, 0x65, 0x0A, 0x43, 0x61, 0x66, 0xC3, 0xA9, 0x0A])
        let latin = try await member.send(
            "POST", imports + "?dry-run=true", body: accented, headers: ["Idempotency-Key": "k-3", "Content-Type": "text/csv; charset=latin1"])
        #expect(latin.status == 200, "\(latin.text)")
        let utf8 = try await member.send(
            "POST", imports + "?dry-run=true", body: accented, headers: ["Idempotency-Key": "k-3", "Content-Type": "text/csv; charset=utf-8"])
        #expect(utf8.problem?.code == "idempotency_key_reused", "\(utf8.status) \(utf8.text)")
        // Keys the client sent apart stay apart, or are refused: bytes that are not UTF-8 (read
        // repaired, k-\xFF and k-\xFE were one key: the second, another task, was refused as a
        // reuse) and é in two encodings (one Swift string) are not keys.
        let token = try #require(f.tokens["member"])
        let before = try await f.service.listTasks(in: f.team, as: .id(f.member.id)).tasks.count
        for (index, key) in [[0x6B, 0x2D, 0xFF], [0x6B, 0x2D, 0xFE], Array("k-\u{E9}".utf8), Array("k-e\u{301}".utf8)].enumerated() {
            let body = Array(#"{"title": "Raw \#(index)"}"#.utf8)
            let connection = try RawConnection(port: f.server.http.port)
            let head =
                "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(body.count)\r\nConnection: close\r\nIdempotency-Key: "
            connection.send(bytes: Array(head.utf8) + key + Array("\r\n\r\n".utf8) + body)
            _ = await connection.readUntilClosed()
            #expect(connection.text.hasPrefix("HTTP/1.1 422 ") && connection.text.contains("Idempotency-Key"), "\(key): \(connection.text)")
        }
        #expect(try await f.service.listTasks(in: f.team, as: .id(f.member.id)).tasks.count == before, "no raw-keyed task was made")
        let spaced = try await member.send("POST", path, json: #"{"title": "Spaced"}"#, headers: ["Idempotency-Key": "order 7 / retry"])
        #expect(spaced.status == 201, "printable ASCII with spaces is a key")
        await f.stop()
    }

    /// A client retrying a DELETE whose answer was lost (the deletion done) once got 404 for a
    /// team or membership that attempt had removed, where in process the call had succeeded.
    @Test(
        "Idempotency-Key on each DELETE: a retry gets the first answer (the deletion done), never the 404 of what it removed; the key with another DELETE is refused",
        arguments: StoreKind.allCases)
    func idempotentDeletes(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store)
        let (owner, member) = (f.client("owner"), f.client("member"))
        // A team of its own to delete, a task and a member. (A token revoked again is 204:
        // that DELETE needs no key.)
        let doomed = try await f.service.createTeam(key: "D\(f.team.rawValue.dropFirst())", name: "Doomed", as: .id(f.owner.id))
        let task = try await f.service.createTask(in: f.team, try TaskDraft(title: "Gone"), as: .id(f.member.id))
        // What the same DELETE without the key answers after: nothing to delete.
        let deletions: [(client: HTTPClient, path: String, status: Int, again: Set<Int>)] = [
            (owner, "/v1/teams/\(doomed.key)", 204, [404]),
            (owner, "/v1/teams/\(f.team)/members/\(f.viewer.email)", 200, [404]),
            (member, "/v1/tasks/\(task.key)", 204, [410]),
        ]
        for (index, deletion) in deletions.enumerated() {
            let key = ["Idempotency-Key": "del-\(index)"]
            let first = try await deletion.client.send("DELETE", deletion.path, headers: key)
            #expect(first.status == deletion.status, "\(deletion.path): \(first.status) \(first.text)")
            let retry = try await deletion.client.send("DELETE", deletion.path, headers: key)
            #expect(retry.status == first.status && retry.body == first.body, "\(deletion.path): the retry got \(retry.status) \(retry.text)")
            let again = try await deletion.client.send("DELETE", deletion.path)
            #expect(deletion.again.contains(again.status), "\(deletion.path): \(again.status)")
        }
        #expect(try await f.service.members(of: f.team, as: .id(f.owner.id)).map(\.user.id).contains(f.viewer.id) == false)
        // One key, another DELETE: refused, nothing removed.
        let other = try await owner.send("DELETE", "/v1/teams/\(f.team)/members/\(f.member.email)", headers: ["Idempotency-Key": "del-1"])
        #expect(other.status == 422 && other.problem?.code == "idempotency_key_reused", "\(other.status) \(other.text)")
        #expect(try await f.service.members(of: f.team, as: .id(f.owner.id)).map(\.user.id).contains(f.member.id))
        await f.stop()
    }

    @Test(
        "Idempotency-Key: a retry adding a parameter the route ignores, or spelling an import's options otherwise, gets the first answer; another option is refused",
        arguments: StoreKind.allCases)
    func idempotencyAcrossQueries(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store)
        let member = f.client("member")
        let path = "/v1/teams/\(f.team)/tasks"
        let first = try await member.send("POST", path, json: #"{"title": "Once"}"#, headers: ["Idempotency-Key": "q-1"])
        #expect(first.status == 201, "\(first.text)")
        // The task route reads no parameter: one it ignores is no other request.
        let retry = try await member.send("POST", path + "?utm=x&utm=y", json: #"{"title": "Once"}"#, headers: ["Idempotency-Key": "q-1"])
        #expect(retry.status == 201 && retry.body == first.body && retry.header("Location") == first.header("Location"), "\(retry.text)")
        #expect(try await f.service.listTasks(in: f.team, as: .id(f.member.id)).tasks.count == 1)
        // The import reads its options: spelled otherwise, in another order, repeated, or a
        // default written out, they are the first request (replayed: no second task is made).
        let imports = "/v1/teams/\(f.team)/imports"
        func importing(_ query: String, key: String = "q-2") async throws -> HTTPClient.Reply {
            try await member.send(
                "POST", imports + query, body: Data("Name\nImported once\n".utf8), headers: ["Idempotency-Key": key, "Content-Type": "text/csv"])
        }
        let imported = try await importing("?delimiter=comma&map=title=Name")
        #expect(imported.status == 200, "\(imported.text)")
        let alike = try await importing("?map=Title=Name&dry-run=false&delimiter=,&on-conflict=UPDATE&delimiter=COMMA&encoding=UTF8")
        #expect(alike.status == 200 && alike.body == imported.body, "\(alike.status) \(alike.text)")
        #expect(try await f.service.listTasks(in: f.team, as: .id(f.member.id)).tasks.count == 2)
        // A value the import reads otherwise is another request, refused as before.
        for other in ["?delimiter=comma&map=title=Name&dry-run=true", "?delimiter=semicolon&map=title=Name", "?delimiter=comma"] {
            let refused = try await importing(other)
            #expect(refused.problem?.code == "idempotency_key_reused", "\(other): \(refused.status) \(refused.text)")
        }
        // A parameter the import does not know is refused, not ignored.
        let unknown = try await importing("?delimiter=comma&map=title=Name&utm=x", key: "q-3")
        #expect(unknown.status == 422 && unknown.problem?.field == "utm", "\(unknown.text)")
        #expect(try await f.service.listTasks(in: f.team, as: .id(f.member.id)).tasks.count == 2)
        await f.stop()
    }

    @Test(
        "Idempotency-Key: a retry through another spelling of the team's path (case, padding, an escape, a trailing slash) gets the first answer; another team is another request",
        arguments: StoreKind.allCases)
    func idempotencyAcrossSpellings(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store)
        let member = f.client("member")
        let team = f.team.rawValue
        let once = #"{"title": "Spelled once"}"#
        let first = try await member.send("POST", "/v1/teams/\(team)/tasks", json: once, headers: ["Idempotency-Key": "spelled"])
        #expect(first.status == 201, "\(first.text)")
        // Each reaches the team the first named; each was refused as a reuse of the key (422).
        let escaped = "%" + String(team.utf8.first!, radix: 16, uppercase: true) + team.dropFirst()
        let spellings = [
            "/v1/teams/\(team.lowercased())/tasks", "/v1/teams/\(team)%20/tasks", "/v1/teams/\(escaped)/tasks", "/v1/teams/\(team)/tasks/",
            "/v1/t%65ams/\(team)/tasks",
        ]
        for spelling in spellings {
            let retry = try await member.send("POST", spelling, json: once, headers: ["Idempotency-Key": "spelled"])
            #expect(
                retry.status == 201 && retry.body == first.body && retry.header("Location") == first.header("Location"), "\(spelling): \(retry.text)")
        }
        #expect(try await f.service.listTasks(in: f.team, as: .id(f.member.id)).tasks.map(\.title) == ["Spelled once"])
        // The same body to another team is another request, however its key is spelled.
        let other = try await f.service.createTeam(key: "O" + team.dropFirst(), name: "Other", as: .id(f.member.id))
        let elsewhere = try await member.send(
            "POST", "/v1/teams/\(other.key.rawValue.lowercased())/tasks", json: once, headers: ["Idempotency-Key": "spelled"])
        #expect(elsewhere.status == 422 && elsewhere.problem?.code == "idempotency_key_reused", "\(elsewhere.status) \(elsewhere.text)")
        #expect(try await f.service.listTasks(in: other.key, as: .id(f.member.id)).tasks.isEmpty)
        // An import, its query and body the same, likewise.
        let csv = Data("Title\nImported once\n".utf8)
        let imported = try await member.send(
            "POST", "/v1/teams/\(team)/imports?dry-run=true", body: csv, headers: ["Idempotency-Key": "spelled-import", "Content-Type": "text/csv"])
        #expect(imported.status == 200, "\(imported.text)")
        let again = try await member.send(
            "POST", "/v1/teams/\(team.lowercased())/imports/?dry-run=true", body: csv,
            headers: ["Idempotency-Key": "spelled-import", "Content-Type": "text/csv"])
        #expect(again.status == 200 && again.body == imported.body, "\(again.status) \(again.text)")
        await f.stop()
    }

    @Test(
        "an Idempotency-Key retry may spell the JSON media type otherwise; an import's other charset is another request",
        arguments: StoreKind.allCases)
    func idempotencyAcrossMediaTypeSpellings(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store)
        let member = f.client("member")
        let once = #"{"title": "Typed once"}"#
        let first = try await member.send("POST", "/v1/teams/\(f.team)/tasks", json: once, headers: ["Idempotency-Key": "typed"])
        #expect(first.status == 201, "\(first.text)")
        for type in ["Application/JSON", "application/json; charset=utf-8", " application/json ;charset=\"UTF-8\""] {
            let retry = try await member.send(
                "POST", "/v1/teams/\(f.team)/tasks", json: once, headers: ["Idempotency-Key": "typed", "Content-Type": type])
            #expect(retry.status == 201 && retry.body == first.body, "\(type): \(retry.status) \(retry.text)")
        }
        #expect(try await f.service.listTasks(in: f.team, as: .id(f.member.id)).tasks.map(\.title) == ["Typed once"])
        // An import decodes its body by the charset: another charset is another request.
        let csv = Data("Title\nCaf\u{E9}\n".utf8)
        let path = "/v1/teams/\(f.team)/imports?dry-run=true"
        let imported = try await member.send(
            "POST", path, body: csv, headers: ["Idempotency-Key": "typed-import", "Content-Type": "text/csv; charset=utf-8"])
        #expect(imported.status == 200, "\(imported.text)")
        let same = try await member.send(
            "POST", path, body: csv, headers: ["Idempotency-Key": "typed-import", "Content-Type": "TEXT/CSV;charset=\"UTF-8\""])
        #expect(same.status == 200 && same.body == imported.body, "\(same.status) \(same.text)")
        let other = try await member.send(
            "POST", path, body: csv, headers: ["Idempotency-Key": "typed-import", "Content-Type": "text/csv; charset=windows-1252"])
        #expect(other.status == 422 && other.problem?.code == "idempotency_key_reused", "\(other.status) \(other.text)")
        await f.stop()
    }

    @Test(
        "DELETE of a task already deleted is 410 to those who may read its history, 404 to outsiders and for a task never made",
        arguments: StoreKind.allCases)
    func deletedTaskIsGone(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store)
        let member = f.client("member")
        let made = try await member.send("POST", "/v1/teams/\(f.team)/tasks", json: #"{"title": "Short-lived"}"#).decode(TaskDocument.self)
        #expect(try await member.send("DELETE", "/v1/tasks/\(made.key)").status == 204)
        // A retry whose first answer was lost could not tell this from a task never made.
        let again = try await member.send("DELETE", "/v1/tasks/\(made.key)")
        #expect(again.status == 410 && again.problem?.code == "not_found", "\(again.text)")
        #expect(again.problem?.taskError == .notFound(what: "task \(made.key)"), "the service's own refusal, under 410")
        #expect(try await f.client("viewer").send("DELETE", "/v1/tasks/\(made.key)").status == 403, "a viewer may delete nothing")
        #expect(try await f.client("outsider").send("DELETE", "/v1/tasks/\(made.key)").status == 404, "existence stays hidden")
        #expect(try await member.send("DELETE", "/v1/tasks/\(f.team)-\(made.number + 50)").status == 404, "never made")
        #expect(try await member.send("GET", "/v1/tasks/\(made.key)").status == 404, "reads stay 404")
        await f.stop()
    }

    @Test(
        "Idempotency-Key across servers sharing a store: a retry that reaches the other gets the first answer; a token's secret is never kept",
        arguments: StoreKind.allCases)
    func idempotencyAcrossServers(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store)
        // A second server over the same store: another taskserve process behind the balancer.
        // Each once kept keys in its own memory, and the retry made a second task.
        let other = try f.server(directoryTTL: .seconds(1))
        let path = "/v1/teams/\(f.team)/tasks"
        let key = "retry-\(UUID().uuidString)"
        let first = try await f.client("member").send("POST", path, json: #"{"title": "Once across"}"#, headers: ["Idempotency-Key": key])
        let retry = try await f.client("member", of: other).send("POST", path, json: #"{"title": "Once across"}"#, headers: ["Idempotency-Key": key])
        #expect(first.status == 201 && retry.status == 201, "\(retry.text)")
        #expect(retry.body == first.body && retry.header("Location") == first.header("Location") && retry.header("ETag") == first.header("ETag"))
        #expect(try await f.service.listTasks(in: f.team, as: .id(f.member.id)).tasks.map(\.title) == ["Once across"])
        let reused = try await f.client("member", of: other).send("POST", path, json: #"{"title": "Other"}"#, headers: ["Idempotency-Key": key])
        #expect(reused.status == 422 && reused.problem?.code == "idempotency_key_reused")
        // A token's answer is its secret, shown once: kept without it, and a retry is told so.
        let tokenKey = "token-\(UUID().uuidString)"
        let made = try await f.client("member").send("POST", "/v1/me/tokens", json: #"{"name": "ci"}"#, headers: ["Idempotency-Key": tokenKey])
        #expect(made.status == 201, "\(made.text)")
        let secret = try #require(made.text.split(separator: "\"").first { $0.hasPrefix("tb_") })
        let again = try await f.client("member", of: other).send(
            "POST", "/v1/me/tokens", json: #"{"name": "ci"}"#, headers: ["Idempotency-Key": tokenKey])
        #expect(
            again.status == 409 && again.problem?.code == "answer_withheld" && again.problem?.detail.contains("shown only once") == true,
            "\(again.text)")
        #expect(!again.text.contains(secret))
        #expect(try await f.service.ownTokens(as: .id(f.member.id)).filter { $0.name == "ci" }.count == 1)
        if store == .postgres {
            try await PGConnection.with(try await TestDatabases.shared.value) { connection in
                let rows = try await connection.query(
                    "SELECT status, body IS NULL AS bodiless, array_to_string(headers, ' ') AS headers FROM idempotency_keys WHERE key = \(tokenKey)")
                #expect(rows.count == 1)
                #expect(try rows.first?.decode(Int32.self, "status") == 201 && rows.first?.decode(Bool.self, "bodiless") == true)
                #expect(try rows.first?.decode(String.self, "headers").contains(String(secret)) == false, "no secret in the database")
            }
        }
        await other.shutdown(grace: .seconds(2))
        await f.stop()
    }

    @Test("users make, list and revoke their own tokens; a revoked token stops at once, as does a disabled user's", arguments: StoreKind.allCases)
    func tokens(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store)
        let member = f.client("member")
        let made = try await member.send("POST", "/v1/me/tokens", json: #"{"name": "laptop", "expires_in": "1h"}"#)
        #expect(made.status == 201)
        let token = try made.decode(NewTokenDocument.self)
        #expect(token.token.hasPrefix("tb_"))
        #expect(token.prefix == String(token.token.prefix(10)))
        let laptop = f.client().with(token: token.token)
        #expect(try await laptop.get("/v1/me").status == 200)
        let listed = try await member.get("/v1/me/tokens")
        #expect(!listed.text.contains(token.token))
        #expect(try listed.decode([TokenDocument].self).map(\.name).contains("laptop"))
        // The Location of a new token is a page of it (once a 405: only DELETE had that path).
        let location = try #require(made.header("Location"))
        let shown = try await member.get(location)
        #expect(shown.status == 200 && !shown.text.contains(token.token), "\(shown.status) \(shown.text)")
        #expect(try shown.decode(TokenDocument.self).name == "laptop")
        for (client, path) in [(f.client("owner"), location), (member, "/v1/me/tokens/0"), (member, "/v1/me/tokens/x")] {
            #expect(try await client.get(path).status == 404, "\(path)")
        }
        #expect(try await f.client("owner").send("DELETE", "/v1/me/tokens/\(token.id)").status == 404)
        #expect(try await laptop.send("DELETE", "/v1/me/tokens/\(token.id)").status == 204)
        let revoked = try await laptop.get("/v1/me")
        #expect(revoked.status == 401 && revoked.header("WWW-Authenticate") == Self.invalidTokenChallenge, "\(revoked.headers)")
        #expect(try await member.send("POST", "/v1/me/tokens", json: #"{"expires_in": "forever"}"#).problem?.field == "expires_in")

        #expect(try await f.client("viewer").get("/v1/me").status == 200)
        _ = try await f.service.setUserDisabled(.id(f.viewer.id), true)
        try await waitFor { try await f.client("viewer").get("/v1/me").status == 401 }
        #expect(try await f.client("viewer").get("/v1/me").header("WWW-Authenticate") == Self.invalidTokenChallenge, "a disabled user's token")
        await f.stop()
    }

    @Test("/healthz and /readyz answer without a token", arguments: StoreKind.allCases)
    func health(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store)
        for _ in 0..<2 {  // the body is made once: the second probe gets the same document
            let health = try await f.client().get("/healthz")
            #expect(health.status == 200)
            let document = try JSONSerialization.jsonObject(with: health.body) as? [String: String]
            #expect(document?["status"] == "ok")
            #expect(document?["version"]?.isEmpty == false)
        }
        #expect(try await f.client().get("/readyz").status == 200)
        await f.stop()
    }
}

@Suite("The database out of reach")
struct UnavailableTests {
    @Test("every pool connection busy is 503 with Retry-After, and the next request after works; nothing half-written")
    func poolExhausted() async throws {
        let store = try await PostgresTaskStore.open(
            config: try await TestDatabases.shared.value, maxConnections: 1, acquireTimeout: .seconds(1))
        let f = try await ServerFixture.start(store: store)
        let tasks = try await f.client("member").get("/v1/teams/\(f.team)/tasks").decode(TaskPageDocument.self).tasks
        let hold = Task { try await store.source.withConnection { _ in try await Task.sleep(for: .seconds(4)) } }
        try await Task.sleep(for: .milliseconds(100))
        let busy = try await f.client("member").send("POST", "/v1/teams/\(f.team)/tasks", json: #"{"title": "While busy"}"#)
        #expect(busy.status == 503)
        #expect(busy.header("Retry-After") == "1")
        #expect(busy.problem?.code == "unavailable")
        try await hold.value
        #expect(try await f.client("member").get("/v1/teams/\(f.team)/tasks").decode(TaskPageDocument.self).tasks == tasks)
        #expect(try await f.client("member").send("POST", "/v1/teams/\(f.team)/tasks", json: #"{"title": "After"}"#).status == 201)
        await f.stop()
    }
}

/// Polls `condition` for up to 5 seconds.
func waitFor(_ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(5)
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(20))
    }
    Issue.record("the condition did not hold within 5 seconds")
}
