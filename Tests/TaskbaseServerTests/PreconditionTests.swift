import Foundation
import TaskCore
import Testing
import TaskbaseWire

/// RFC 9110 §13.1.1-2 and §13.2.2 on every route, not only a task's PATCH and DELETE: before,
/// a team's PATCH or DELETE, a member's PUT or DELETE and every read ignored `If-Match` and
/// `If-None-Match` (a stale `If-Match` renamed or deleted the team; `If-None-Match: *`, the
/// idiom for "only if absent", overwrote an existing member's role), and later every POST did
/// (a made-up `If-Match` made the token, team, task or import all the same).
@Suite("Preconditions on teams, members and reads: a false If-Match or If-None-Match is 412, judged after the access checks")
struct PreconditionTests {
    @Test(
        "a team's PATCH and DELETE: If-Match compares strongly (its weak tag never matches), * holds; If-None-Match * or its tag is false",
        arguments: StoreKind.allCases)
    func team(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store)
        let owner = f.client("owner"), path = "/v1/teams/\(f.team)"
        let tag = try #require(try await owner.get(path).header("ETag"))
        for headers in [
            ["If-Match": #"W/"stale""#], ["If-Match": tag], ["If-Match": #""nope", \#(tag)"#], ["If-None-Match": "*"],
            ["If-None-Match": #""x", \#(tag)"#],
        ] {
            let refused = try await owner.send("PATCH", path, json: #"{"name": "Changed"}"#, headers: headers)
            #expect(refused.status == 412, "\(headers): \(refused.status) \(refused.text)")
            #expect(refused.problem?.code == "precondition_failed" && refused.header("ETag") == tag, "\(headers)")
            #expect(refused.problem?.what == "team \(f.team)")
            let kept = try await owner.send("DELETE", path, headers: headers)
            #expect(kept.status == 412, "\(headers): \(kept.status)")
        }
        #expect(try await owner.get(path).decode(TeamDocument.self).name == "Server tests")
        // Refusals that hide or guard the team come first: an outsider still gets 404, a
        // member or viewer 403, whatever the condition.
        for (role, status) in [("outsider", 404), ("member", 403), ("viewer", 403)] {
            for headers in [["If-Match": #""nope""#], ["If-None-Match": "*"]] {
                #expect(try await f.client(role).send("PATCH", path, json: #"{"name": "No"}"#, headers: headers).status == status, "\(role)")
                #expect(try await f.client(role).send("DELETE", path, headers: headers).status == status, "\(role)")
            }
        }
        let renamed = try await owner.send("PATCH", path, json: #"{"name": "Renamed"}"#, headers: ["If-Match": "*", "If-None-Match": #""other""#])
        #expect(renamed.status == 200 && (try? renamed.decode(TeamDocument.self).name) == "Renamed", "\(renamed.text)")
        #expect(try await owner.send("PATCH", path, json: #"{"name": "x"}"#, headers: ["If-Match": "nope"]).status == 422)
        // A name no condition could make right is 422 naming it, before the condition is
        // judged, as a new team's is (the fuzzer's case: If-None-Match: * made it 412).
        for body in [#"{"name": ""}"#, #"{"name": "two\nlines"}"#, #"{"name": "a\u0007b"}"#] {
            for headers in [["If-None-Match": "*"], ["If-Match": #""nope""#], ["If-None-Match": tag]] {
                let refused = try await owner.send("PATCH", path, json: body, headers: headers)
                #expect(refused.status == 422 && refused.problem?.field == "name", "\(body) \(headers): \(refused.status) \(refused.text)")
            }
        }
        #expect(try await owner.get(path).decode(TeamDocument.self).name == "Renamed")
        #expect(try await owner.send("DELETE", path, headers: ["If-Match": "*"]).status == 204)
        #expect(try await owner.get(path).status == 404)
        await f.stop()
    }

    @Test(
        "a member's PUT: If-None-Match * adds only one who is absent, If-Match * changes only one who is there; DELETE alike",
        arguments: StoreKind.allCases)
    func member(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store)
        let owner = f.client("owner"), members = "/v1/teams/\(f.team)/members"
        let viewerPath = "\(members)/\(f.viewer.email)", outsiderPath = "\(members)/\(f.outsider.email)"
        let tag = try #require(try await owner.get(viewerPath).header("ETag"))
        // The idiom for "create only if absent": an existing member's role stays.
        let overwrite = try await owner.send("PUT", viewerPath, json: #"{"role": "admin"}"#, headers: ["If-None-Match": "*"])
        #expect(overwrite.status == 412, "\(overwrite.status) \(overwrite.text)")
        #expect(overwrite.problem?.code == "precondition_failed" && overwrite.header("ETag") == tag)
        for headers in [["If-Match": tag], ["If-Match": #""nope""#], ["If-None-Match": tag]] {
            #expect(try await owner.send("PUT", viewerPath, json: #"{"role": "admin"}"#, headers: headers).status == 412, "\(headers)")
            #expect(try await owner.send("DELETE", viewerPath, headers: headers).status == 412, "\(headers)")
        }
        #expect(try await owner.send("DELETE", viewerPath, headers: ["If-None-Match": "*"]).status == 412)
        #expect(try await owner.get(viewerPath).decode(MemberDocument.self).role == "viewer")
        // If-Match: * on one who is no member is false: not added.
        let absent = try await owner.send("PUT", outsiderPath, json: #"{"role": "member"}"#, headers: ["If-Match": "*"])
        #expect(absent.status == 412 && absent.header("ETag") == nil, "\(absent.status)")
        #expect(try await owner.get(outsiderPath).status == 404)
        // Refusals that hide or guard the team come first.
        let viewer = try await f.client("viewer").send(
            "PUT", "\(members)/\(f.member.email)", json: #"{"role": "viewer"}"#, headers: ["If-None-Match": "*"])
        #expect(viewer.status == 403)
        let outsider = try await f.client("outsider").send("PUT", viewerPath, json: #"{"role": "admin"}"#, headers: ["If-None-Match": "*"])
        #expect(outsider.status == 404)
        #expect(try await f.client("outsider").send("DELETE", viewerPath, headers: ["If-Match": #""nope""#]).status == 404)
        // True conditions: added once, changed when there, removed when there.
        #expect(try await owner.send("PUT", outsiderPath, json: #"{"role": "member"}"#, headers: ["If-None-Match": "*"]).status == 201)
        #expect(try await owner.send("PUT", outsiderPath, json: #"{"role": "admin"}"#, headers: ["If-Match": "*"]).status == 200)
        #expect(try await owner.send("PUT", outsiderPath, json: #"{"role": "viewer"}"#, headers: ["If-None-Match": tag]).status == 200)
        #expect(try await owner.send("DELETE", outsiderPath, headers: ["If-Match": "*"]).status == 200)
        await f.stop()
    }

    @Test(
        "a read with a false If-Match is 412, after the access checks: a task's version compares strongly, a weak tag never matches",
        arguments: StoreKind.allCases)
    func reads(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store)
        let task = try await f.service.createTask(in: f.team, try TaskDraft(title: "Read"), as: .id(f.member.id))
        let viewer = f.client("viewer"), path = "/v1/tasks/\(task.key)"
        for method in ["GET", "HEAD"] {
            let stale = try await viewer.send(method, path, headers: ["If-Match": #""99""#])
            #expect(stale.status == 412 && stale.header("ETag") == #""1""#, "\(method): \(stale.status)")
            if method == "GET" { #expect(stale.problem?.code == "conflict" && stale.problem?.currentVersion == 1) }
            #expect(try await viewer.send(method, path, headers: ["If-Match": #""99", "1""#]).status == 200)
            #expect(try await viewer.send(method, path, headers: ["If-Match": "*"]).status == 200)
            #expect(try await viewer.send(method, path, headers: ["If-Match": #"W/"1""#]).status == 412)
        }
        // If-Match is judged before If-None-Match (§13.2.2): false, it is 412, never 304.
        #expect(try await viewer.get(path, headers: ["If-Match": #""2""#, "If-None-Match": #""1""#]).status == 412)
        #expect(try await viewer.get(path, headers: ["If-Match": #""1""#, "If-None-Match": #""1""#]).status == 304)
        let team = "/v1/teams/\(f.team)"
        let tag = try #require(try await viewer.get(team).header("ETag"))
        let weak = try await viewer.get(team, headers: ["If-Match": tag])
        #expect(weak.status == 412 && weak.problem?.code == "precondition_failed" && weak.header("ETag") == tag)
        #expect(try await viewer.get(team, headers: ["If-Match": "*"]).status == 200)
        #expect(try await viewer.get("\(team)/tasks", headers: ["If-Match": #""1""#]).status == 412)
        // An If-Match that is no list of entity tags is refused as input (422 naming the header),
        // as on a change, not judged false: the fuzzer's `If-Match: {}` on every read was 412.
        for read in [path, team, "/healthz"] {
            let malformed = try await viewer.get(read, headers: ["If-Match": "{}"])
            #expect(malformed.status == 422 && malformed.problem?.field == "If-Match", "\(read): \(malformed.status)")
        }
        // An outsider learns nothing: 404, as without the header.
        #expect(try await f.client("outsider").get(path, headers: ["If-Match": #""99""#]).status == 404)
        #expect(try await f.client("outsider").get(team, headers: ["If-Match": #""99""#]).status == 404)
        await f.stop()
    }

    @Test(
        "an export or event stream refused by its If-Match (412, or 422 malformed) opens nothing: the next export gets the one slot",
        arguments: StoreKind.allCases)
    func streams(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store, maxExports: 1)
        let viewer = f.client("viewer"), team = "/v1/teams/\(f.team)"
        for (ifMatch, status) in [(#""1""#, 412), ("null,null", 422), (#"W/"1""#, 412)] {
            for path in ["\(team)/export", "\(team)/events"] {
                let refused = try await viewer.get(path, headers: ["If-Match": ifMatch])
                #expect(refused.status == status, "\(path) If-Match: \(ifMatch): \(refused.status)")
                if status == 412 { #expect(refused.problem?.detail.contains("no ETag") == true, "\(refused.problem?.detail ?? "")") }
            }
            // Straight after: the refused export held no slot (before, it had opened its snapshot
            // and held the one slot until its aborted stream wound down: the fuzzer's 503).
            let export = try await viewer.get("\(team)/export")
            #expect(export.status == 200, "after If-Match: \(ifMatch): \(export.status)")
        }
        #expect(try await viewer.get("\(team)/export", headers: ["If-Match": "*"]).status == 200)
        #expect(try await f.client("outsider").get("\(team)/export", headers: ["If-Match": #""1""#]).status == 404)
        await f.stop()
    }

    @Test("a token's DELETE: If-Match * revokes only a token of one's own, a tag never matches; If-None-Match * or its tag is 412")
    func token() async throws {
        let f = try await ServerFixture.start(.memory)
        let member = f.client("member")
        let made = try await member.send("POST", "/v1/me/tokens", json: #"{"name": "spare"}"#)
        let path = try #require(made.header("Location"))
        let tag = try #require(try await member.get(path).header("ETag"))
        for headers in [["If-Match": tag], ["If-Match": #""nope""#], ["If-None-Match": "*"], ["If-None-Match": tag]] {
            let refused = try await member.send("DELETE", path, headers: headers)
            #expect(refused.status == 412 && refused.problem?.code == "precondition_failed" && refused.header("ETag") == tag, "\(headers)")
        }
        #expect(try await member.get(path).status == 200)
        // Another user's token is none of theirs: 404 without a condition, If-Match: * false.
        #expect(try await f.client("owner").send("DELETE", path).status == 404)
        #expect(try await f.client("owner").send("DELETE", path, headers: ["If-Match": "*"]).status == 412)
        #expect(try await member.send("DELETE", path, headers: ["If-Match": "*", "If-None-Match": #""other""#]).status == 204)
        await f.stop()
    }

    /// A POST route, what it adds to, and how to count what is there.
    struct PostRoute: Sendable, CustomStringConvertible {
        /// The route's path, which a 412's `what` names.
        let path: String
        /// Whether the collection has a `GET`, hence a weak `ETag` (the imports have none).
        let tagged: Bool
        /// Sends the POST as `role` with `headers`: each makes one thing when it goes through.
        let post: @Sendable (_ role: String, _ headers: [String: String]) async throws -> HTTPClient.Reply
        /// How many things the collection holds, as `member` sees it.
        let count: @Sendable () async throws -> Int

        var description: String { "POST \(path)" }

        /// The collection's `ETag` as its `GET` answers `member`, read until two reads agree (the
        /// token's first use is recorded after its answer, once a minute, which a token list shows).
        func tag(_ f: ServerFixture) async throws -> String? {
            guard tagged else { return nil }
            var last: String?
            for _ in 0..<20 {
                let now = try await f.client("member").get(path).header("ETag")
                if now != nil, now == last { return now }
                last = now
                try await Task.sleep(for: .milliseconds(50))
            }
            return last
        }

        static func all(_ f: ServerFixture) -> [PostRoute] {
            let team = "/v1/teams/\(f.team)"
            let tasks: @Sendable () async throws -> Int = { try await f.client("owner").get("\(team)/summary").decode(SummaryDocument.self).total }
            return [
                PostRoute(
                    path: "/v1/me/tokens", tagged: true,
                    post: { try await f.client($0).send("POST", "/v1/me/tokens", json: #"{"name": "spare"}"#, headers: $1) },
                    count: { try await f.client("member").get("/v1/me/tokens").decode([TokenDocument].self).count }),
                PostRoute(
                    path: "/v1/teams", tagged: true,
                    post: { role, headers in
                        let key = "P" + String(UInt64.random(in: 0..<UInt64.max), radix: 36).uppercased().prefix(8)
                        return try await f.client(role).send("POST", "/v1/teams", json: #"{"key": "\#(key)", "name": "Made"}"#, headers: headers)
                    },
                    count: { try await f.client("member").get("/v1/teams").decode([TeamDocument].self).count }),
                PostRoute(
                    path: "\(team)/tasks", tagged: true,
                    post: { try await f.client($0).send("POST", "\(team)/tasks", json: #"{"title": "Made"}"#, headers: $1) }, count: tasks),
                PostRoute(
                    path: "\(team)/imports", tagged: false,
                    post: { role, headers in
                        // A title of its own each time: a row without an external id is matched by its content.
                        let csv = "Title\nImported \(UInt64.random(in: 0..<UInt64.max))\n"
                        return try await f.client(role).send(
                            "POST", "\(team)/imports", body: Data(csv.utf8), headers: ["Content-Type": "text/csv"].merging(headers) { $1 })
                    }, count: tasks),
            ]
        }
    }

    @Test(
        "a POST judges If-Match and If-None-Match on the collection it adds to: If-Match * holds and a tag never does (a weak ETag); If-None-Match * or the collection's ETag is 412, nothing made",
        arguments: StoreKind.allCases)
    func posts(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store)
        _ = try await f.service.createTask(in: f.team, try TaskDraft(title: "There"), as: .id(f.member.id))
        for route in PostRoute.all(f) {
            let tag = try await route.tag(f), before = try await route.count()
            var falseOnes = [
                ["If-Match": #""made-up""#], ["If-Match": #"W/"made-up""#], ["If-None-Match": "*"], ["If-Match": "*", "If-None-Match": "*"],
            ]
            if let tag {
                // The collection's own weak tag: never by the strong comparison, always by the weak one.
                falseOnes += [
                    ["If-Match": tag], ["If-None-Match": tag], ["If-None-Match": #""x", \#(tag)"#], ["If-Match": "*", "If-None-Match": tag],
                ]
            }
            for headers in falseOnes {
                let refused = try await route.post("member", headers)
                #expect(refused.status == 412, "\(route) \(headers): \(refused.status) \(refused.text)")
                #expect(refused.problem?.code == "precondition_failed" && refused.problem?.what == route.path, "\(route) \(headers)")
                #expect(refused.header("ETag") == tag, "\(route) \(headers): \(refused.header("ETag") ?? "no ETag")")
            }
            #expect(try await route.count() == before, "\(route): the refused POSTs made something")
            let malformed = try await route.post("member", ["If-Match": "{}"])
            #expect(malformed.status == 422 && malformed.problem?.field == "If-Match", "\(route): \(malformed.status)")
            // True ones go through, each making one.
            let trueOnes = [["If-Match": "*"], ["If-None-Match": #"W/"made-up""#], ["If-Match": "*", "If-None-Match": #""other", W/"stale""#]]
            for headers in trueOnes {
                let made = try await route.post("member", headers)
                #expect((200..<300).contains(made.status), "\(route) \(headers): \(made.status) \(made.text)")
            }
            #expect(try await route.count() == before + trueOnes.count, "\(route)")
        }
        await f.stop()
    }

    @Test(
        "a POST's body is judged before its preconditions: input no condition could make right is 422 naming the field, whatever the condition",
        arguments: StoreKind.allCases)
    func postsJudgeTheBodyFirst(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store)
        let cases: [(path: String, json: String, field: String)] = [
            ("/v1/teams", #"{"key": "1BAD", "name": "Bad"}"#, "key"),
            ("/v1/teams", #"{"key": "GOOD", "name": ""}"#, "name"),
            ("/v1/me/tokens", #"{"name": ""}"#, "name"),
            ("/v1/me/tokens", #"{"expires_in": "1.5d"}"#, "expires_in"),
            ("/v1/teams/\(f.team)/tasks", #"{"title": ""}"#, "title"),
        ]
        for (path, json, field) in cases {
            for headers in [["If-None-Match": "*"], ["If-Match": #""made-up""#]] {
                let refused = try await f.client("member").send("POST", path, json: json, headers: headers)
                #expect(refused.status == 422 && refused.problem?.field == field, "\(path) \(json) \(headers): \(refused.status) \(refused.text)")
            }
        }
        await f.stop()
    }

    @Test(
        "a POST's preconditions come after its access checks (an outsider 404, a viewer 403), and its Idempotency-Key does not keep a 412",
        arguments: StoreKind.allCases)
    func postsAfterAccessChecks(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store)
        let routes = PostRoute.all(f).filter { $0.path.hasPrefix("/v1/teams/") }
        #expect(routes.count == 2)
        let before = try await routes[0].count()
        for route in routes {
            for headers in [["If-Match": #""nope""#], ["If-None-Match": "*"], ["If-Match": "*"]] {
                let outsider = try await route.post("outsider", headers)
                #expect(outsider.status == 404, "\(route) \(headers): \(outsider.status)")
                let viewer = try await route.post("viewer", headers)
                #expect(viewer.status == 403, "\(route) \(headers): \(viewer.status)")
            }
            // The import is refused before its body is read: its task count does not move.
            let refused = try await route.post("member", ["If-Match": #""nope""#])
            #expect(refused.status == 412, "\(route): \(refused.status) \(refused.text)")
        }
        #expect(try await routes[0].count() == before)
        // A 412 is a refusal like any other: the key is not kept, and a corrected retry runs
        // once, later retries getting its answer.
        let key = ["Idempotency-Key": "precondition-\(UInt64.random(in: 0..<UInt64.max))"]
        let tasks = routes[0]
        let refused = try await tasks.post("member", key.merging(["If-None-Match": "*"]) { $1 })
        #expect(refused.status == 412, "\(refused.status) \(refused.text)")
        let made = try await tasks.post("member", key)
        #expect(made.status == 201, "\(made.status) \(made.text)")
        let replayed = try await tasks.post("member", key)
        #expect(replayed.status == 201 && replayed.header("Location") == made.header("Location"))
        #expect(try await tasks.count() == before + 1)
        await f.stop()
    }
}
