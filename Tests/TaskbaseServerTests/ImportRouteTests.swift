import CSVImport
import Foundation
import TaskbaseTestSupport
import PGStore
import TaskCore
import TaskbaseServer
import TaskbaseWire
import Testing

@Suite("POST /v1/teams/{team}/imports: CSV through taskimport's pipeline over HTTP")
struct ImportRouteTests {
    static let file = """
        Title,Status,Due Date,ID
        Write the spec,In Progress,2026-03-10,SPEC-1
        Review it,To Do,,SPEC-2
        Ship it,Done,10.03.2026,

        """

    func post(
        _ f: ServerFixture, as role: String = "member", _ csv: String, query: String = "", headers: [String: String] = [:]
    ) async throws
        -> HTTPClient.Reply
    {
        try await f.client(role).send(
            "POST", "/v1/teams/\(f.team)/imports\(query)", body: Data(csv.utf8), headers: ["Content-Type": "text/csv"].merging(headers) { $1 })
    }

    func taskCount(_ f: ServerFixture) async throws -> Int {
        try await f.client("owner").get("/v1/teams/\(f.team)/summary").decode(SummaryDocument.self).total
    }

    @Test("a file imports as the token's user and answers taskimport's summary; importing it again changes nothing", arguments: StoreKind.allCases)
    func importsAndReimports(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store)
        let reply = try await post(f, Self.file)
        #expect(reply.status == 200, "\(reply.text)")
        let report = try reply.decode(ImportReportDocument.self)
        #expect(report.team == f.team.rawValue)
        #expect((report.read, report.inserted, report.updated, report.rejected, report.changed) == (3, 3, 0, 0, true))
        #expect(report.onConflict == "update" && !report.dryRun && report.file == nil)
        let page = try await f.client("viewer").get("/v1/teams/\(f.team)/tasks?sort=number").decode(TaskPageDocument.self)
        #expect(page.tasks.map(\.title) == ["Write the spec", "Review it", "Ship it"])
        #expect(page.tasks.map(\.createdBy) == [f.member.email, f.member.email, f.member.email])
        #expect(page.tasks.first?.externalID.value == "SPEC-1")

        let again = try await post(f, Self.file).decode(ImportReportDocument.self)
        #expect((again.inserted, again.updated, again.unchanged, again.changed) == (0, 0, 3, false))
        #expect(try await taskCount(f) == 3)

        let dryRun = try await post(f, Self.file.replacingOccurrences(of: "Review it,To Do", with: "Review it,Done"), query: "?dry-run=true")
        #expect(try dryRun.decode(ImportReportDocument.self).updated == 1)
        #expect(try dryRun.decode(ImportReportDocument.self).dryRun)
        #expect(try await f.client("viewer").get("/v1/tasks/\(page.tasks[1].key)").decode(TaskDocument.self).status == "open")
        await f.stop()
    }

    @Test(
        "Content-Encoding: gzip: a gzipped file (one member or two) imports as the plain one; not gzip or cut short is 400, unpacking past the cap 413, another coding 415; nothing is written",
        arguments: StoreKind.allCases)
    func gzippedBodies(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store, maxImportBytes: 4_096)
        func send(_ body: [UInt8], coding: String = "gzip") async throws -> HTTPClient.Reply {
            try await f.client("member").send(
                "POST", "/v1/teams/\(f.team)/imports", body: Data(body), headers: ["Content-Type": "text/csv", "Content-Encoding": coding])
        }
        let packed = try #require(Gzip.compress(Array(Self.file.utf8), level: 6))
        // Refusals first, while the team is empty.
        let notGzip = try await send(Array(Self.file.utf8))
        #expect(notGzip.status == 400 && notGzip.problem?.reason == "the body says Content-Encoding: gzip but is not whole gzip", "\(notGzip.text)")
        #expect(try await send(Array(packed.dropLast(9))).status == 400)
        let bomb = try #require(Gzip.compress(Array(String(repeating: "Title\nSame row over and over\n", count: 20_000).utf8), level: 9))
        #expect(bomb.count < 4_096, "a small body")
        let tooLarge = try await send(bomb)
        #expect(tooLarge.status == 413 && tooLarge.problem?.detail.contains("unpacks to more than 4096 bytes") == true, "\(tooLarge.text)")
        let brotli = try await send(packed, coding: "br")
        #expect(brotli.status == 415 && brotli.problem?.detail.contains("gzip") == true)
        #expect(try await taskCount(f) == 0)
        // A JSON route takes no compressed body.
        let json = try await f.client("member").send(
            "POST", "/v1/teams/\(f.team)/tasks", body: Data(try #require(Gzip.compress(Array(#"{"title":"x"}"#.utf8), level: 1))),
            headers: ["Content-Type": "application/json", "Content-Encoding": "gzip"])
        #expect(json.status == 415)
        // Accepted: one member, then the same rows as two members back to back (cat a.gz b.gz).
        let reply = try await send(packed)
        #expect(reply.status == 200, "\(reply.text)")
        #expect(try reply.decode(ImportReportDocument.self).inserted == 3)
        let lines = Self.file.split(separator: "\n", omittingEmptySubsequences: false)
        let first = lines.prefix(2).joined(separator: "\n") + "\n", rest = lines.dropFirst(2).joined(separator: "\n")
        let twoMembers = try #require(Gzip.compress(Array(first.utf8), level: 1)) + (try #require(Gzip.compress(Array(rest.utf8), level: 1)))
        let again = try await send(twoMembers, coding: "x-gzip")
        #expect(again.status == 200, "\(again.text)")
        #expect(try again.decode(ImportReportDocument.self).unchanged == 3)
        #expect(try await taskCount(f) == 3)
        await f.stop()
    }

    @Test(
        "advice names the route's query parameters, never taskimport's flags; Content-Type's charset is how the body is read, an unknown one 415",
        arguments: StoreKind.allCases)
    func adviceAndCharset(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store)
        func send(_ body: [UInt8], type: String, query: String = "") async throws -> HTTPClient.Reply {
            try await f.client("member").send("POST", "/v1/teams/\(f.team)/imports\(query)", body: Data(body), headers: ["Content-Type": type])
        }
        // Windows-1252 as Excel saves it: é is 0xE9, € 0x80.
        let latin = Array("Title;Notes\r\nCaf".utf8) + [0xE9] + Array(";".utf8) + [0x80] + Array(" euro\r\n".utf8)
        let refused = try await send(latin, type: "text/csv", query: "?dry-run=true")
        #expect(refused.status == 422, "\(refused.text)")
        let reason = try #require(refused.problem?.reason)
        // Once: "read it with --encoding windows-1252 ... (--max-errors 0) ... --reject-file PATH",
        // and the route refuses reject-file (422, not an import option).
        #expect(reason.contains("encoding=windows-1252") && reason.contains("max-errors=0"), "\(reason)")
        #expect(!reason.contains("--") && !reason.contains("reject-file"), "\(reason)")
        let noTitle = try await send(Array("Colour\nred\n".utf8), type: "text/csv")
        #expect(noTitle.problem?.reason?.contains("map=title=HEADER") == true, "\(noTitle.text)")
        // The charset the client declared is how the body is read (it was ignored: read as UTF-8).
        let declared = try await send(latin, type: "text/csv; charset=windows-1252", query: "?dry-run=true")
        #expect(declared.status == 200, "\(declared.text)")
        #expect(try declared.decode(ImportReportDocument.self).inserted == 1)
        let unknown = try await send(latin, type: "text/csv; charset=ebcdic", query: "?dry-run=true")
        #expect(unknown.status == 415 && unknown.problem?.detail.contains("charset ebcdic") == true, "\(unknown.text)")
        #expect(try await taskCount(f) == 0)
        await f.stop()
    }

    @Test("bad rows within max-errors are left out and reported with line, column, header and reason", arguments: StoreKind.allCases)
    func rejects(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store)
        let csv = "Name;Due\nGood row;2026-03-10\nBad date;2026-02-30\nAmbiguous;03/10/2026\n"
        let reply = try await post(f, csv, query: "?max-errors=5&delimiter=%3B")
        #expect(reply.status == 200, "\(reply.text)")
        let report = try reply.decode(ImportReportDocument.self)
        #expect((report.read, report.inserted, report.rejected) == (3, 1, 2))
        #expect(report.delimiter == ";")
        #expect(report.rejections.map(\.line) == [3, 4])
        #expect(report.rejections.map(\.column) == [2, 2])
        #expect(report.rejections.map(\.header) == ["Due", "Due"])
        #expect(report.rejections.first?.reason.contains("2026-02-30 is not a real date") == true)
        #expect(try await taskCount(f) == 1)
        await f.stop()
    }

    @Test(
        "an assignee outside the team is no member, whether the importer sees them, and whether they have an account at all",
        arguments: StoreKind.allCases)
    func assigneesAsTheImporterSees(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store)
        let csv = "Title,Assignee\nStranger's,\(f.outsider.email)\nNobody's,nobody.\(f.team.rawValue.lowercased())@example.com\n"
        func reasons(as role: String) async throws -> [String] {
            let reply = try await post(f, as: role, csv, query: "?max-errors=5&dry-run=true")
            #expect(reply.status == 200, "\(reply.text)")
            return try reply.decode(ImportReportDocument.self).rejections.map(\.reason)
        }
        // Once, "is not a member of team" for the outsider against "no user … exists" for the
        // address without an account told a member that the first has an account.
        let expected = [f.outsider.email, "nobody.\(f.team.rawValue.lowercased())@example.com"].map { "\($0) is not a member of team \(f.team)" }
        #expect(try await reasons(as: "member") == expected)
        #expect(try await reasons(as: "owner") == expected)
        // The same once the owner shares another team with the outsider, and sees them.
        let elsewhere = try await f.service.createTeam(key: "E" + f.team.rawValue, name: "Elsewhere", as: .id(f.owner.id)).key
        try await f.service.setRole(.viewer, for: .email(f.outsider.email), in: elsewhere, as: .id(f.owner.id))
        #expect(try await reasons(as: "owner") == expected)
        await f.stop()
    }

    @Test("a re-import of a file with fewer columns changes only the columns it has", arguments: StoreKind.allCases)
    func partialReimport(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store)
        let header = "External ID,Title,Status,Priority,Assignee,Category,Due Date,Notes\n"
        let full = header + "X1,Fix it,done,urgent,\(f.member.email),Ops,2026-03-10,important\n"
        #expect(try await post(f, full).status == 200)
        let reply = try await post(f, "External ID,Title\nX1,Fix it now\n")
        let report = try reply.decode(ImportReportDocument.self)
        #expect((report.inserted, report.updated) == (0, 1), "\(reply.text)")
        let task = try await f.client("viewer").get("/v1/tasks/\(f.team)-1").decode(TaskDocument.self)
        #expect(task.title == "Fix it now" && task.version == 2)
        // Before, each of these went back to its default: open, none, no date, nobody, none, "".
        #expect((task.status, task.priority, task.dueDate.value, task.assignee.value) == ("done", "urgent", "2026-03-10", f.member.email))
        #expect((task.category.value, task.notes) == ("Ops", "important"))
        await f.stop()
    }

    @Test("an import sent with no bearer credential is 401 from its headers, its body never stored")
    func anonymousUploadRefusedEarly() async throws {
        let f = try await ServerFixture.start(.memory)
        // Once the server spooled the announced megabytes first and refused them only then.
        // "Bearer" with no credential after it is no bearer token either, as the token check
        // reads the header (the early check once took any "bearer " prefix and spooled it).
        for authorization in [nil, "Basic dXNlcjpwYXNz", "Bearer   ", "Bearer"] {
            let connection = try RawConnection(port: f.server.http.port)
            connection.send(
                "POST /v1/teams/\(f.team)/imports HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/csv\r\n"
                    + (authorization.map { "Authorization: \($0)\r\n" } ?? "") + "Content-Length: 50000000\r\n\r\nTitle\n")
            #expect(await connection.read(until: { $0.contains("\r\n\r\n") }, limit: .seconds(10)), "no answer before the body")
            #expect(
                connection.text.hasPrefix("HTTP/1.1 401") && connection.text.contains("WWW-Authenticate: Bearer"), "\(connection.text.prefix(300))")
        }
        #expect(try await taskCount(f) == 0)
        await f.stop()
    }

    /// An import of `csv` into `f`'s team (PostgreSQL) waiting on the team's counter row,
    /// which the connection returned holds (`FOR UPDATE`, in a transaction: `COMMIT` frees it),
    /// as another writer would; and the import's task.
    func importWaitingOnTheCounter(_ f: ServerFixture, _ csv: String) async throws -> (PGConnection, Task<HTTPClient.Reply, any Error>) {
        let blocker = try await PGConnection.connect(try await TestDatabases.shared.value)
        try await blocker.execute("BEGIN")
        try await blocker.execute("SELECT FROM task_counters c JOIN teams t ON t.id = c.team_id WHERE t.key = \(f.team.rawValue) FOR UPDATE")
        let held = Task { try await post(f, csv) }
        do {
            // 0.1 s alone; the whole suite on two cores once took more than 10 s to get there.
            try await waitUntil("the import to wait on the lock", limit: .seconds(45), every: .milliseconds(20)) {
                // Statistics views keep one snapshot per transaction: cleared, each look is fresh.
                try await blocker.execute("SELECT pg_stat_clear_snapshot()")
                return try await blocker.query(
                    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE \(Int64(blocker.backendPID)) = ANY(pg_blocking_pids(pid))")[0]
                    .decode(Int.self, "n") >= 1
            }
        } catch {
            // Let the held import go, so the server stops rather than the suite's time limit.
            _ = try? await blocker.execute("COMMIT")
            _ = try? await held.value
            await f.stop()
            throw error
        }
        return (blocker, held)
    }

    @Test("imports past --max-imports are 503 with Retry-After, nothing done, while each running one holds its connection")
    func importsBounded() async throws {
        let f = try await ServerFixture.start(.postgres, maxImports: 1)
        // The first import waits, holding its connection, on the team's counter row (locked
        // here as another writer would); without a cap every import did, until the pool was gone.
        let (blocker, first) = try await importWaitingOnTheCounter(f, "Title\nHeld\n")
        let second = try await post(f, "Title\nRefused\n")
        #expect(second.status == 503 && second.header("Retry-After") == "5", "\(second.status) \(second.text)")
        #expect(second.text.contains("--max-imports"))
        try await blocker.execute("COMMIT")
        await blocker.close()
        #expect(try await first.value.status == 200)
        #expect(try await post(f, "Title\nAfter\n").status == 200, "the place is free again")
        #expect(try await taskCount(f) == 2)
        await f.stop()
    }

    /// An audit's finding: the handler of a request still running when shutdown's grace ended
    /// was left to run, so an import waiting on a lock committed once the lock was freed, after
    /// its client had been told 503, in the second before the process exited.
    @Test("an import still running when shutdown's grace ends is cancelled: answered 503, and nothing of it commits after")
    func shutdownCancelsImport() async throws {
        let f = try await ServerFixture.start(.postgres)
        let (blocker, held) = try await importWaitingOnTheCounter(f, "Title\nHeld past the grace\n")
        await f.server.shutdown(grace: .milliseconds(300))
        let answer = try await held.value
        #expect(answer.status == 503, "\(answer.status) \(answer.text)")
        // The lock freed: an import left running would take it now and commit.
        try await blocker.execute("COMMIT")
        await blocker.close()
        try await Task.sleep(for: .seconds(2))
        #expect(try await f.service.listTasks(in: f.team, as: .id(f.owner.id)).tasks.isEmpty, "the import committed after its 503")
    }

    @Test("refused rows past the first 100 are counted, not kept: memory stays flat however many a small gzip refuses")
    func rejectionsBounded() async throws {
        let f = try await ServerFixture.start(.memory)
        // One title, then the same external id again and again: every row after the first is
        // refused. Once the route kept each refusal: a 1 MB gzip of such lines held gigabytes.
        let csv = "Title,External ID\n" + String(repeating: "x,same\n", count: 250)
        let reply = try await post(f, csv, query: "?max-errors=100000&dry-run=true")
        #expect(reply.status == 200, "\(reply.text.prefix(300))")
        let report = try reply.decode(ImportReportDocument.self)
        #expect((report.read, report.inserted, report.rejected) == (250, 1, 249))
        #expect(report.rejections.count == 100 && report.rejections.first?.line == 3)
        await f.stop()
    }

    @Test("viewers are refused with 403 and outsiders get 404, before the body is read; nothing is written", arguments: StoreKind.allCases)
    func roles(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store)
        #expect(try await post(f, as: "viewer", Self.file).status == 403)
        #expect(try await post(f, as: "outsider", Self.file).status == 404)
        #expect(try await post(f, as: "outsider", "no title here\n").status == 404)
        #expect(try await post(f, as: "viewer", "no title here\n").problem?.code == "permission_denied")
        // Nor are its options looked at first: an unknown or bad one is still 404 and 403, with
        // an Idempotency-Key too (whose fingerprint reads them before the access check).
        for query in ["?undeclared=1", "?delimiter=nope", "?map=nothing"] {
            for headers in [[:], ["Idempotency-Key": "roles\(query)"]] {
                let outsider = try await post(f, as: "outsider", Self.file, query: query, headers: headers)
                #expect(outsider.status == 404, "\(query) \(headers): \(outsider.text)")
                let viewer = try await post(f, as: "viewer", Self.file, query: query, headers: headers)
                #expect(viewer.status == 403, "\(query) \(headers): \(viewer.text)")
            }
        }
        #expect(try await f.client().send("POST", "/v1/teams/\(f.team)/imports", body: Data(Self.file.utf8)).status == 401)
        #expect(try await taskCount(f) == 0)
        await f.stop()
    }

    @Test(
        "malformed input is a 422 problem saying where; a bad row past max-errors in a later batch leaves the team as it was",
        arguments: StoreKind.allCases)
    func malformed(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store)
        let noTitle = try await post(f, "Status,Due\nopen,2026-01-01\n")
        #expect(noTitle.status == 422)
        #expect(noTitle.header("Content-Type") == "application/problem+json")
        #expect(noTitle.problem?.code == "validation")
        #expect(noTitle.problem?.field == "body")
        #expect(noTitle.problem?.detail.contains("title") == true)

        let quote = try await post(f, "Title\n\"never closed\n")
        #expect(quote.status == 422)
        #expect(quote.problem?.code == "validation")

        // Two bad rows within max-errors, a good one, then an unterminated quote: the counts so
        // far and the column's header (they were 0, 0 and missing).
        let cut = try await post(f, "Title,Notes\na\"b,x\nc,d,e\nok,y\n\"unterminated,z\n", query: "?max-errors=5")
        #expect(cut.status == 422, "\(cut.text)")
        let cutDocument = try #require(try JSONSerialization.jsonObject(with: cut.body) as? [String: Any])
        #expect(cutDocument["read"] as? Int == 3 && cutDocument["rejected"] as? Int == 2, "\(cut.text)")
        #expect(cutDocument["header"] as? String == "Title" && cutDocument["column"] as? Int == 1, "\(cut.text)")
        #expect((cutDocument["rejections"] as? [[String: Any]])?.count == 2, "\(cut.text)")

        #expect(try await post(f, Self.file, query: "?on-conflict=sometimes").problem?.field == "on-conflict")
        #expect(try await post(f, Self.file, query: "?on_conflict=skip").problem?.field == "on_conflict")
        #expect(try await post(f, Self.file, query: "?map=colour%3DColor").problem?.field == "map")
        #expect(try await post(f, Self.file, headers: ["Content-Type": "application/json"]).status == 415)

        // 6,000 good rows (more than one batch of 5,000), then one bad one: nothing lands.
        var rows = ["Title,ID"]
        for number in 1...6_000 { rows.append("Task \(number),T-\(number)") }
        rows.append("Bad,T-1")
        let big = try await post(f, rows.joined(separator: "\n") + "\n")
        #expect(big.status == 422, "\(big.text.prefix(300))")
        let document = try #require(try JSONSerialization.jsonObject(with: big.body) as? [String: Any])
        #expect(document["line"] as? Int == 6_002)
        #expect(document["read"] as? Int == 6_001)
        let rejections = try #require(document["rejections"] as? [[String: Any]])
        #expect(rejections.map { $0["line"] as? Int } == [6_002])
        #expect((rejections.first?["reason"] as? String)?.contains("T-1") == true)
        #expect(try await taskCount(f) == 0)
        await f.stop()
    }

    @Test("the import body has its own cap: above the default body cap it is taken, above its own cap it is 413", arguments: StoreKind.allCases)
    func sizeCap(store: StoreKind) async throws {
        let f = try await ServerFixture.start(store, limits: HTTPServerLimits(maxBodyBytes: 1_024), maxImportBytes: 8 << 10)
        var rows = ["Title"]
        for number in 1...200 { rows.append("Imported task number \(number)") }
        let medium = rows.joined(separator: "\n")
        #expect(medium.utf8.count > 1_024)
        #expect(try await post(f, medium).status == 200)
        // Just over the cap, so the client has sent it all before the 413 comes back.
        let large = String(repeating: medium + "\n", count: 2)
        #expect(large.utf8.count > 8 << 10 && large.utf8.count < 12 << 10)
        let refused = try await post(f, large)
        #expect(refused.status == 413)
        #expect(refused.problem?.code == "payload_too_large")
        let json = #"{"title": "\#(String(repeating: "x", count: 2_000))"}"#
        #expect(try await f.client("member").send("POST", "/v1/teams/\(f.team)/tasks", json: json).status == 413)
        #expect(try await taskCount(f) == 200)
        await f.stop()
    }

    @Test("Idempotency-Key: a retry gets the first answer without importing again; the key with another file is refused")
    func idempotency() async throws {
        let f = try await ServerFixture.start(.memory)
        let first = try await post(f, Self.file, headers: ["Idempotency-Key": "import-1"])
        let retry = try await post(f, Self.file, headers: ["Idempotency-Key": "import-1"])
        #expect(first.status == 200)
        #expect(retry.body == first.body)
        #expect(try retry.decode(ImportReportDocument.self).inserted == 3)
        let other = try await post(f, Self.file + "Another,Done,,\n", headers: ["Idempotency-Key": "import-1"])
        #expect(other.status == 422)
        #expect(other.problem?.code == "idempotency_key_reused")
        #expect(try await taskCount(f) == 3)
        await f.stop()
    }
}
