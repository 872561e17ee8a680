import Foundation
import TaskCore
import Testing
import TaskbaseWire

/// RFC 9110 §13.1.1-2 and §13.2.2 on every route, not only a task's PATCH and DELETE: before,
/// a team's PATCH or DELETE, a member's PUT or DELETE and every read ignored `If-Match` and
/// `If-None-Match` (a stale `If-Match` renamed or deleted the team; `If-None-Match: *`, the
/// idiom for "only if absent", overwrote an existing member's role).
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
}
