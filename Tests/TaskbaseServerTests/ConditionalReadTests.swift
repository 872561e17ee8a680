import Foundation
import TaskCore
import Testing

@testable import TaskbaseServer

@Suite("Weak ETags on the JSON reads without a version: If-None-Match gives 304 while nothing changed")
struct ConditionalReadTests {
    @Test("If-None-Match: *, the tag itself, or its opaque part with or without W/, among others; never another tag")
    func matching() {
        let tag = #"W/"0123abcd""#
        for header in ["*", tag, #""0123abcd""#, #""other", W/"0123abcd""#, #" W/"0123abcd" , "x""#] {
            #expect(DigestETag.matches(header, tag), "\(header)")
        }
        for header in ["", #""0123abcE""#, #"W/"0123abcd"#, "0123abcd", #"W/"0123abcd"x"#] {
            #expect(!DigestETag.matches(header, tag), "\(header)")
        }
        #expect(DigestETag.of(Array("[]".utf8)) == DigestETag.of(Array("[]".utf8)))
        #expect(DigestETag.of(Array("[]".utf8)) != DigestETag.of(Array("[ ]".utf8)))
        #expect(DigestETag.of(Array("[]".utf8)).utf8.count == 36, "W/, quotes and 32 hex digits")
    }

    @Test("a task list carries a weak ETag, gzipped or not; If-None-Match gives 304 with no body until a task changes")
    func taskList() async throws {
        let f = try await CompressionTests.fixture()
        let port = f.server.http.port
        let token = try #require(f.tokens["member"])
        let member = f.client("member")
        let list = "/v1/teams/\(f.team.rawValue)/tasks"
        let first = try await member.get(list)
        let tag = try #require(first.header("ETag"))
        #expect(first.status == 200 && tag.hasPrefix("W/\""), "\(tag)")
        // The same JSON gzipped has the same weak tag.
        let packed = try await CompressionTests.rawGet(port: port, list, token: token, acceptEncoding: "gzip")
        #expect(packed.header("Content-Encoding") == "gzip" && packed.header("ETag") == tag)
        // Unchanged: 304, no body, the tag again; a client's list of tags may hold it anywhere.
        let again = try await CompressionTests.rawGet(
            port: port, list, token: token, acceptEncoding: "gzip", headers: ["If-None-Match": #""stale", \#(tag)"#])
        #expect(again.status == 304 && again.body.isEmpty && again.header("ETag") == tag, "\(again.status)")
        #expect(again.header("Content-Type") == nil && again.header("X-Request-Id") != nil)
        #expect(try await member.get(list, headers: ["If-None-Match": "*"]).status == 304)
        let head = try await member.send("HEAD", list, headers: ["If-None-Match": tag])
        #expect(head.status == 304)
        // Another page or filter is another answer.
        #expect(try await member.get(list + "?limit=2", headers: ["If-None-Match": tag]).status == 200)
        // A change to a task changes the list: 200 with a new tag.
        _ = try await f.service.updateTask(
            TaskKey(team: f.team, number: 1), try TaskChanges(title: "Renamed"), expectedVersion: nil, as: .id(f.member.id))
        let changed = try await member.get(list, headers: ["If-None-Match": tag])
        #expect(changed.status == 200 && changed.header("ETag") != tag && changed.text.contains("Renamed"))
        // Another user's view of the same route is answered for them: the tag is no key to it.
        #expect(try await f.client("outsider").get(list, headers: ["If-None-Match": "*"]).status == 404)
        await f.stop()
    }

    /// `/healthz`'s answer is made and tagged once; a probe that sends its tag back gets 304.
    @Test("/healthz carries the weak ETag of its body, the same on every probe, and If-None-Match gives 304")
    func healthTag() async throws {
        let f = try await ServerFixture.start(.memory)
        let anyone = f.client()
        let first = try await anyone.get("/healthz")
        let tag = try #require(first.header("ETag"))
        #expect(first.status == 200 && tag == DigestETag.of(Array(first.text.utf8)), "\(tag) \(first.text)")
        #expect(try await anyone.get("/healthz").header("ETag") == tag)
        let again = try await anyone.get("/healthz", headers: ["If-None-Match": tag])
        #expect(again.status == 304 && again.text.isEmpty && again.header("ETag") == tag)
        await f.stop()
    }

    /// RFC 9110 §15.4.5: a 304 carries the `ETag` and `Vary` the 200 would have; §8.6: its
    /// `Content-Length`, when it has one, is the 200's. Before, a 304 said `Content-Length: 0`
    /// and, for a list, no `Vary: Accept-Encoding`: a cache freshening its copy from it took both.
    @Test("a 304 says what the 200 would have: its Vary, and its Content-Length, gzipped or plain, for a list and a task")
    func notModifiedHeaders() async throws {
        let f = try await CompressionTests.fixture()
        let port = f.server.http.port
        let token = try #require(f.tokens["member"])
        for path in ["/v1/teams/\(f.team.rawValue)/tasks", "/v1/tasks/\(f.team.rawValue)-1"] {
            for encoding in ["gzip", "identity"] {
                let whole = try await CompressionTests.rawGet(port: port, path, token: token, acceptEncoding: encoding)
                let tag = try #require(whole.header("ETag"), "\(path)")
                #expect(whole.status == 200 && whole.header("Content-Length") == String(whole.body.count), "\(path) \(encoding)")
                for method in ["GET", "HEAD"] {
                    let unchanged = try await CompressionTests.rawGet(
                        port: port, path, token: token, acceptEncoding: encoding, method: method, headers: ["If-None-Match": tag])
                    #expect(unchanged.status == 304 && unchanged.body.isEmpty, "\(method) \(path) \(encoding): \(unchanged.status)")
                    #expect(unchanged.header("ETag") == tag)
                    #expect(unchanged.header("Vary") == whole.header("Vary"), "\(method) \(path) \(encoding)")
                    #expect(
                        unchanged.header("Content-Length") == whole.header("Content-Length"),
                        "\(method) \(path) \(encoding): \(unchanged.header("Content-Length") ?? "none"), the 200's \(whole.body.count)")
                    #expect(unchanged.header("Content-Type") == nil && unchanged.header("Content-Encoding") == nil)
                }
            }
        }
        await f.stop()
    }

    @Test("a task keeps its strong ETag, its version; teams, members, the summary, /v1/me and the OpenAPI document are tagged")
    func otherReads() async throws {
        let f = try await CompressionTests.fixture()
        let member = f.client("member")
        let task = try await member.get("/v1/tasks/\(f.team.rawValue)-1")
        #expect(task.header("ETag") == #""1""#)
        #expect(try await member.get("/v1/tasks/\(f.team.rawValue)-1", headers: ["If-None-Match": #"W/"1""#]).status == 304)
        // RFC 9110 §13.1.2: `*` matches any current representation, so a task that exists is 304
        // (a missing one stays 404); a list naming the version among others matches, one that
        // does not (an old version, a digest, garbage) reads the task.
        #expect(try await member.get("/v1/tasks/\(f.team.rawValue)-1", headers: ["If-None-Match": "*"]).status == 304)
        #expect(try await member.get("/v1/tasks/\(f.team.rawValue)-999", headers: ["If-None-Match": "*"]).status == 404)
        #expect(try await member.get("/v1/tasks/\(f.team.rawValue)-1", headers: ["If-None-Match": #"W/"abc", "1""#]).status == 304)
        for other in [#""2""#, #"W/"0123456789abcdef""#, "garbage", #""1"#] {
            #expect(try await member.get("/v1/tasks/\(f.team.rawValue)-1", headers: ["If-None-Match": other]).status == 200, "\(other)")
        }
        for path in [
            "/v1/me", "/v1/teams", "/v1/teams/\(f.team.rawValue)", "/v1/teams/\(f.team.rawValue)/members",
            "/v1/teams/\(f.team.rawValue)/summary", "/v1/tasks/\(f.team.rawValue)-1/history", "/openapi.json",
        ] {
            let reply = try await member.get(path)
            let tag = try #require(reply.header("ETag"), "\(path)")
            #expect(reply.status == 200 && tag.hasPrefix("W/"), "\(path)")
            #expect(try await member.get(path, headers: ["If-None-Match": tag]).status == 304, "\(path)")
        }
        // A refusal carries no tag, and no tag turns it into 304.
        let refused = try await f.client("viewer").send("POST", "/v1/teams/\(f.team.rawValue)/tasks", json: #"{"title":"x"}"#)
        #expect(refused.status == 403 && refused.header("ETag") == nil)
        await f.stop()
    }
}

@Suite("If-Match compares entity tags, not numbers, and takes a list")
struct IfMatchTests {
    @Test("only a strong tag written as a version (\"3\") names one; other tags name none; a list names each; anything else is invalid")
    func parsing() throws {
        #expect(try ETag.condition(in: " * ", field: "If-Match") == .any)
        let cases: [(String, Set<Int64>)] = [
            (#""3""#, [3]), (#""+3""#, []), (#""003""#, []), (#""0""#, []), (#""-1""#, []), (#"W/"3""#, []), (#""abc""#, []), (#""""#, []),
            (#""1", "2""#, [1, 2]), (#""x",W/"2" , "2""#, [2]), (#", "4",,"#, [4]), (#""99999999999999999999""#, []),
        ]
        for (header, versions) in cases {
            #expect(try ETag.condition(in: header, field: "If-Match") == .versions(versions), "\(header)")
        }
        for header in ["", "3", #""3"#, #""3" x"#, #""3" "4""#, #"w/"3""#, "\"a b\"", ","] {
            #expect(throws: TaskError.self, "\(header)") { try ETag.condition(in: header, field: "If-Match") }
        }
    }

    @Test("over HTTP: \"+1\" and \"01\" are 412, not version 1; a list matches when any member is the current version", arguments: StoreKind.allCases)
    func overHTTP(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store)
        let member = f.client("member")
        let created = try await member.send("POST", "/v1/teams/\(f.team)/tasks", json: #"{"title": "Tagged"}"#)
        let key = try #require(created.header("Location")?.split(separator: "/").last)
        for tag in [#""+1""#, #""01""#, #"W/"1""#, #""1.0""#] {
            let reply = try await member.send("PATCH", "/v1/tasks/\(key)", json: #"{"title": "No"}"#, headers: ["If-Match": tag])
            #expect(reply.status == 412 && reply.header("ETag") == #""1""#, "\(tag): \(reply.status) \(reply.text)")
        }
        let listed = try await member.send("PATCH", "/v1/tasks/\(key)", json: #"{"title": "Yes"}"#, headers: ["If-Match": #""7", "1""#])
        #expect(listed.status == 200 && listed.header("ETag") == #""2""#, "\(listed.status) \(listed.text)")
        let stale = try await member.send("PATCH", "/v1/tasks/\(key)", json: #"{"title": "No"}"#, headers: ["If-Match": #""1", "3""#])
        #expect(stale.status == 412 && stale.header("ETag") == #""2""#, "\(stale.status) \(stale.text)")
        #expect(try await member.send("DELETE", "/v1/tasks/\(key)", headers: ["If-Match": #""+2", "2""#]).status == 204)
        await f.stop()
    }

    /// RFC 9110 §13.1.2: when `If-None-Match` names the current representation (or is `*`,
    /// and the task exists) a PATCH or DELETE must not be performed and is 412. Both were
    /// ignored: `If-None-Match: *` ("only if there is none") overwrote the task.
    @Test(
        "If-None-Match on PATCH and DELETE: * or the current version is 412 and changes nothing; another version lets it through",
        arguments: StoreKind.allCases)
    func ifNoneMatchOnChanges(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store)
        let member = f.client("member")
        let created = try await member.send("POST", "/v1/teams/\(f.team)/tasks", json: #"{"title": "Kept"}"#)
        let key = try #require(created.header("Location")?.split(separator: "/").last)
        for tag in ["*", #""1""#, #"W/"1""#, #""7", "1""#] {
            let patched = try await member.send("PATCH", "/v1/tasks/\(key)", json: #"{"title": "Overwritten"}"#, headers: ["If-None-Match": tag])
            #expect(patched.status == 412 && patched.header("ETag") == #""1""#, "\(tag): \(patched.status) \(patched.text)")
            #expect(
                patched.problem?.code == "conflict" && patched.problem?.currentVersion == 1
                    && patched.problem?.detail.contains("If-None-Match") == true)
            let deleted = try await member.send("DELETE", "/v1/tasks/\(key)", headers: ["If-None-Match": tag])
            #expect(deleted.status == 412, "\(tag): \(deleted.status) \(deleted.text)")
        }
        let kept = try await member.get("/v1/tasks/\(key)")
        #expect(kept.status == 200 && kept.text.contains(#""title":"Kept""#) && kept.header("ETag") == #""1""#, "\(kept.text)")
        // The checks that come before a precondition still do: a viewer is 403, a task never made 404.
        let viewer = try await f.client("viewer").send("PATCH", "/v1/tasks/\(key)", json: #"{"title": "No"}"#, headers: ["If-None-Match": "*"])
        #expect(viewer.status == 403, "\(viewer.status)")
        #expect(try await member.send("DELETE", "/v1/tasks/\(f.team)-999", headers: ["If-None-Match": "*"]).status == 404)
        // A tag that is not the current one lets the change through, on that version; with If-Match too.
        let changed = try await member.send("PATCH", "/v1/tasks/\(key)", json: #"{"title": "Changed"}"#, headers: ["If-None-Match": #""9""#])
        #expect(changed.status == 200 && changed.header("ETag") == #""2""#, "\(changed.status) \(changed.text)")
        let both = try await member.send(
            "PATCH", "/v1/tasks/\(key)", json: #"{"title": "Again"}"#, headers: ["If-Match": #""2""#, "If-None-Match": #""1""#])
        #expect(both.status == 200 && both.header("ETag") == #""3""#, "\(both.status) \(both.text)")
        let staleMatch = try await member.send(
            "PATCH", "/v1/tasks/\(key)", json: #"{"title": "No"}"#, headers: ["If-Match": #""2""#, "If-None-Match": #""1""#])
        #expect(staleMatch.status == 412 && staleMatch.header("ETag") == #""3""#, "\(staleMatch.status)")
        #expect(try await member.send("DELETE", "/v1/tasks/\(key)", headers: ["If-None-Match": #""2""#]).status == 204)
        await f.stop()
    }
}
