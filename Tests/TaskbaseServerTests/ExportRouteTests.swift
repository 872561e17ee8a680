import CSVImport
import Foundation
import TaskCore
import TaskbaseExport
import TaskbaseWire
import TaskbaseTestSupport
import Testing

@testable import TaskbaseServer

@Suite("GET /v1/teams/{team}/export: a team's tasks as the CSV imports read, streamed")
struct ExportRouteTests {
    /// An import file of `count` rows (more than one export page) with fields that need
    /// quoting, an assignee and a formula-like title.
    static func file(rows count: Int, assignee: String, notesBytes: Int = 12) -> String {
        var lines = ["External ID,Title,Notes,Status,Priority,Due Date,Assignee,Category"]
        let notes = String(repeating: "n", count: notesBytes)
        for number in 1...count {
            let title = number == 1 ? "=1+1" : number == 2 ? "\"Quoted\", with a comma" : "Task \(number)"
            let quoted = "\"" + title.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            let assigned = number % 3 == 0 ? assignee : ""
            let due = number % 5 == 0 ? "2027-01-\(String(format: "%02d", number % 28 + 1))" : ""
            lines.append("EXT-\(number),\(quoted),\"\(notes)\nline two\",todo,\(number % 2 == 0 ? "high" : "low"),\(due),\(assigned),c\(number % 4)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    func importFile(_ f: ServerFixture, _ csv: String, into team: TeamKey, as role: String = "owner") async throws -> ImportReportDocument {
        let reply = try await f.client(role).send(
            "POST", "/v1/teams/\(team)/imports", body: Data(csv.utf8), headers: ["Content-Type": "text/csv"])
        #expect(reply.status == 200, "\(reply.text)")
        return try reply.decode(ImportReportDocument.self)
    }

    @Test(
        "the export is taskctl export's CSV, across pages; imported into another team and exported again it is the same bytes",
        arguments: StoreKind.allCases)
    func roundTrip(store: StoreKind) async throws {
        // Pages of 100 so that 250 rows make three: the parallel suite need not import thousands.
        let f = try await ServerFixture.start(store, exportPageSize: 100)
        let rows = 250
        #expect(try await importFile(f, Self.file(rows: rows, assignee: f.member.email), into: f.team).inserted == rows)

        let reply = try await f.client("viewer").get("/v1/teams/\(f.team)/export")
        #expect(reply.status == 200, "\(reply.text)")
        #expect(reply.header("Content-Type") == "text/csv; charset=utf-8")
        #expect(reply.header("Content-Disposition") == "attachment; filename=\"\(f.team)-tasks.csv\"")
        // The same bytes as taskctl export writes for the team.
        let collected = Collected()
        _ = try await TaskExport(service: f.service, team: f.team, actor: .id(f.viewer.id)).write(as: .csv) { collected.append($0) }
        // The same bytes as taskctl export writes, in its own pages of 1,000.
        #expect(reply.body == collected.data)
        #expect(reply.text.hasPrefix(TaskExport.csvHeader.joined(separator: ",") + "\r\n"))
        #expect(reply.text.contains("\r\nEXT-1,=1+1,"))

        // Into a team of the owner's own, with the assignee a member there too, and out again.
        let other = try await f.client("owner").send("POST", "/v1/teams", json: #"{"key": "X\#(f.team.rawValue.dropFirst())", "name": "Copy"}"#)
        #expect(other.status == 201, "\(other.text)")
        let copy = try TeamKey(try other.decode(TeamDocument.self).key)
        let added = try await f.client("owner").send("PUT", "/v1/teams/\(copy)/members/\(f.member.email)", json: #"{"role": "member"}"#)
        #expect(added.status == 200 || added.status == 201, "\(added.text)")
        let report = try await importFile(f, reply.text, into: copy)
        #expect((report.inserted, report.rejected) == (rows, 0))
        let again = try await f.client("owner").get("/v1/teams/\(copy)/export")
        #expect(again.status == 200)
        #expect(again.body == reply.body)
        await f.stop()
    }

    @Test("outsiders get 404, no token 401, an unknown or malformed parameter 422; defuse-formulas quotes formula-like cells")
    func refusalsAndDefusing() async throws {
        let f = try await ServerFixture.start(.memory)
        _ = try await importFile(f, Self.file(rows: 3, assignee: f.member.email), into: f.team)
        #expect(try await f.client("outsider").get("/v1/teams/\(f.team)/export").status == 404)
        #expect(try await f.client("viewer").get("/v1/teams/NOSUCH/export").status == 404)
        #expect(try await f.client().get("/v1/teams/\(f.team)/export").status == 401)
        let unknown = try await f.client("viewer").get("/v1/teams/\(f.team)/export?format=json")
        #expect(unknown.status == 422)
        #expect(unknown.problem?.field == "format")
        #expect(try await f.client("viewer").get("/v1/teams/\(f.team)/export?defuse-formulas=perhaps").status == 422)
        let defused = try await f.client("viewer").get("/v1/teams/\(f.team)/export?defuse-formulas=true")
        #expect(defused.status == 200)
        #expect(defused.text.contains("\r\nEXT-1,'=1+1,"), "\(defused.text)")
        // HEAD: the headers only, and the export started for it is let go.
        let head = try RawConnection(port: f.server.http.port)
        head.send(
            "HEAD /v1/teams/\(f.team)/export HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(f.tokens["viewer"]!)\r\nConnection: close\r\n\r\n"
        )
        #expect(await head.readUntilClosed())
        #expect(head.text.hasPrefix("HTTP/1.1 200") && head.text.contains("Content-Type: text/csv") && !head.text.contains("External ID"))
        try await waitUntil("the HEAD's export to be let go") { f.server.http.openStreams == 0 }
        await f.stop()
    }

    @Test("with Accept-Encoding: gzip the export is gzipped as it is written: unpacked, the same bytes; Vary either way")
    func gzipped() async throws {
        let f = try await ServerFixture.start(.memory)
        _ = try await importFile(f, Self.file(rows: 600, assignee: f.member.email), into: f.team)
        let collected = Collected()
        _ = try await TaskExport(service: f.service, team: f.team, actor: .id(f.viewer.id)).write(as: .csv) { collected.append($0) }
        let raw = try RawConnection(port: f.server.http.port)
        raw.get(
            "/v1/teams/\(f.team)/export",
            headers: ["Authorization": "Bearer \(f.tokens["viewer"]!)", "Accept-Encoding": "gzip", "Connection": "close"])
        #expect(await raw.readUntilClosed())
        let (head, body) = try #require(Self.split(raw.received))
        #expect(head.contains("\r\nContent-Encoding: gzip\r\n") && head.contains("\r\nVary: Accept-Encoding\r\n"), "\(head)")
        let packed = try #require(Self.unchunked(body))
        let unpacked = Gzip.decompress(packed).map { Data($0) }
        #expect(unpacked == collected.data)
        #expect(packed.count * 4 < collected.data.count, "\(packed.count) of \(collected.data.count)")
        // Without the header: plain, and still Vary.
        let plain = try RawConnection(port: f.server.http.port)
        plain.get("/v1/teams/\(f.team)/export", headers: ["Authorization": "Bearer \(f.tokens["viewer"]!)", "Connection": "close"])
        #expect(await plain.readUntilClosed())
        let (plainHead, plainBody) = try #require(Self.split(plain.received))
        #expect(!plainHead.contains("Content-Encoding") && plainHead.contains("\r\nVary: Accept-Encoding\r\n"))
        #expect(Self.unchunked(plainBody).map { Data($0) } == collected.data)
        await f.stop()
    }

    /// A response's head (as text) and body.
    static func split(_ response: Data) -> (String, [UInt8])? {
        let bytes = [UInt8](response)
        guard let end = (0..<max(0, bytes.count - 3)).first(where: { bytes[$0..<$0 + 4].elementsEqual("\r\n\r\n".utf8) }) else { return nil }
        return (String(decoding: bytes[..<(end + 2)], as: UTF8.self), Array(bytes[(end + 4)...]))
    }

    /// A chunked body's bytes; nil when it is not whole (no last chunk).
    static func unchunked(_ body: [UInt8]) -> [UInt8]? {
        var output: [UInt8] = [], index = 0
        while let lineEnd = (index..<max(index, body.count - 1)).first(where: { body[$0] == 13 && body[$0 + 1] == 10 }) {
            guard let size = Int(String(decoding: body[index..<lineEnd], as: UTF8.self), radix: 16) else { return nil }
            if size == 0 { return output }
            let start = lineEnd + 2
            guard start + size + 2 <= body.count else { return nil }
            output += body[start..<(start + size)]
            index = start + size + 2
        }
        return nil
    }

    /// A server with about 350 KB of CSV to export, more than the socket buffers hold, and a
    /// reader that has the export's first bytes and reads no more.
    func startStalledDownload(
        _ store: StoreKind = .memory, exportPageSize: Int = TaskQuery.limitRange.upperBound, maxExports: Int = 4
    )
        async throws -> (ServerFixture, RawConnection)
    {
        let f = try await ServerFixture.start(store, streamBufferBytes: 4_096, exportPageSize: exportPageSize, maxExports: maxExports)
        _ = try await importFile(f, Self.file(rows: 400, assignee: f.member.email, notesBytes: 800), into: f.team)
        let reader = try RawConnection(port: f.server.http.port, receiveBuffer: 2_048)
        reader.get("/v1/teams/\(f.team)/export", headers: ["Authorization": "Bearer \(f.tokens["viewer"]!)"])
        #expect(await reader.read(until: { $0.contains("External ID") }))
        return (f, reader)
    }

    @Test(
        "an export is the team as of its first page: a task changed, deleted or added while it downloads is as it was",
        arguments: StoreKind.allCases)
    func oneSnapshot(store: StoreKind) async throws {
        // 400 tasks in pages of 20; the reader has taken the first page when the changes come,
        // and the server has read only a few pages ahead of it.
        let (f, reader) = try await startStalledDownload(store, exportPageSize: 20)
        let owner = UserRef.id(f.owner.id)
        _ = try await f.service.updateTask(
            TaskKey(team: f.team, number: 400), try TaskChanges(title: "Changed meanwhile"), expectedVersion: nil, as: owner)
        try await f.service.deleteTask(TaskKey(team: f.team, number: 399), as: owner)
        _ = try await f.service.createTask(in: f.team, TaskDraft(title: "Added meanwhile"), as: owner)
        #expect(await reader.read(until: { $0.hasSuffix("\r\n0\r\n\r\n") }, limit: .seconds(60)))
        let file = String(decoding: Self.unchunked(reader.text), as: UTF8.self)
        #expect(file.contains("EXT-399,"))
        #expect(file.contains("EXT-400,Task 400,"))
        #expect(!file.contains("Changed meanwhile") && !file.contains("Added meanwhile"))
        #expect(file.components(separatedBy: "\r\nEXT-").count - 1 == 400)
        // The change did happen: an export begun now sees it.
        let now = try await f.client("viewer").get("/v1/teams/\(f.team)/export")
        #expect(now.text.contains("Changed meanwhile") && !now.text.contains("EXT-399,"))
        await f.stop()
    }

    @Test("past --max-exports another export is 503 with Retry-After 5 while other requests go on; once one ends, the next is served")
    func exportsAreCapped() async throws {
        let (f, reader) = try await startStalledDownload(maxExports: 1)
        let refused = try await f.client("owner").get("/v1/teams/\(f.team)/export")
        #expect(refused.status == 503)
        #expect(refused.header("Retry-After") == "5")
        #expect(refused.text.contains("--max-exports"), "\(refused.text)")
        #expect(try await f.client("owner").get("/v1/teams/\(f.team)/tasks?limit=1").status == 200)
        reader.reset()
        // The slot is free once the server has seen the reset; each try downloads the whole
        // export, which on a loaded machine (the full suite on two cores) takes seconds.
        try await waitUntil("the next export to be served", limit: .seconds(60)) {
            try await f.client("owner").get("/v1/teams/\(f.team)/export").status == 200
        }
        await f.stop()
    }

    /// The body of a chunked HTTP response (`text` from its status line on), chunk headers taken out.
    static func unchunked(_ text: String) -> [UInt8] {
        let bytes = Array(text.utf8)
        guard let headerEnd = text.range(of: "\r\n\r\n") else { return [] }
        var index = text.utf8.distance(from: text.utf8.startIndex, to: headerEnd.upperBound)
        var body: [UInt8] = []
        while index < bytes.count, let lineEnd = bytes[index...].firstIndex(of: UInt8(ascii: "\r")),
            let size = Int(String(decoding: bytes[index..<lineEnd], as: UTF8.self), radix: 16), size > 0
        {
            let start = lineEnd + 2
            body += bytes[start..<min(start + size, bytes.count)]
            index = start + size + 2
        }
        return body
    }

    @Test("a download still running when the grace ends is cut off without the body's end, so it never looks complete")
    func cutOffAtShutdown() async throws {
        let (f, reader) = try await startStalledDownload()
        #expect(f.server.http.openStreams == 1)
        let started = ContinuousClock.now
        await f.server.shutdown(grace: .milliseconds(500))
        // A bound for a hang only: how fast it ends is the next test's (a starved CI machine
        // must not fail this one: 0.6 s alone, and alone beside six busy loops on the two
        // cores; 11.2 s once in a fresh clone's CI, the whole suite running at once).
        #expect(ContinuousClock.now - started < .seconds(30), "\(ContinuousClock.now - started)")
        #expect(await reader.readUntilClosed())
        #expect(reader.text.hasPrefix("HTTP/1.1 200"))
        #expect(!reader.text.hasSuffix("\r\n0\r\n\r\n"), "a cut-off body must not end as a complete chunked body")
    }

    @Test("an aborted download's connection is closed at once, even when its reader has stopped reading")
    func abortClosesAStalledConnection() async throws {
        let (f, reader) = try await startStalledDownload()
        let buffer = try #require(f.server.http.openStreamBuffers.first)
        // Once the socket is full the daemon waits on it and never asks the stream for more: only
        // shutting the socket down ends it before the server stops.
        try await waitUntil("the socket to fill") { buffer.pendingBytes > 0 }
        try await Task.sleep(for: .milliseconds(200))
        buffer.abort()
        // Without reading a byte more: the server lets the connection go by itself.
        try await waitUntil("the stalled connection to be closed", limit: .seconds(10)) { f.server.http.openStreams == 0 }
        #expect(await reader.readUntilClosed())
        #expect(!reader.text.hasSuffix("\r\n0\r\n\r\n"))
        await f.stop()
    }

    @Test("a download whose token stops working meanwhile (its user disabled) is cut off after the page it was on")
    func tokenRevokedMidway() async throws {
        let (f, reader) = try await startStalledDownload()
        _ = try await f.service.setUserDisabled(.id(f.viewer.id), true)
        // Once the server refuses the token, the export, waiting for its reader, checks it too.
        try await waitUntil("the viewer's token to be refused") { try await f.client("viewer").get("/v1/me").status == 401 }
        #expect(await reader.readUntilClosed())
        #expect(reader.text.hasPrefix("HTTP/1.1 200"))
        #expect(!reader.text.hasSuffix("\r\n0\r\n\r\n"), "the export must end cut off, not complete")
        await f.stop()
    }

    @Test("a download that is read finishes during shutdown's grace, complete")
    func finishesWithinGrace() async throws {
        let f = try await ServerFixture.start(.memory, streamBufferBytes: 4_096)
        _ = try await importFile(f, Self.file(rows: 300, assignee: f.member.email, notesBytes: 400), into: f.team)
        let reader = try RawConnection(port: f.server.http.port, receiveBuffer: 2_048)
        reader.get("/v1/teams/\(f.team)/export", headers: ["Authorization": "Bearer \(f.tokens["viewer"]!)", "Connection": "close"])
        #expect(await reader.read(until: { $0.contains("External ID") }))
        async let stopped: Void = f.server.shutdown(grace: .seconds(10))
        #expect(await reader.readUntilClosed(limit: .seconds(10)))
        await stopped
        #expect(reader.text.hasSuffix("\r\n0\r\n\r\n"))
        #expect(reader.text.contains("EXT-300,"))
    }

    @Test("the byte queue gives back what was queued, in order, across its compactions and drains")
    func byteQueue() {
        // Small on purpose: a synchronous test holds one of the two cooperative threads the
        // whole parallel suite shares (an earlier, 10 MB version starved other tests' clocks).
        var queue = ByteQueue()
        var expected: [UInt8] = [], taken: [UInt8] = [], next: UInt8 = 0
        var out = [UInt8](repeating: 0, count: 8_192)
        func append(_ count: Int) {
            var piece = [UInt8](repeating: 0, count: count)
            for index in piece.indices {
                piece[index] = next
                next &+= 1
            }
            queue.append(contentsOf: piece)
            expected += piece
        }
        func take(_ max: Int) {
            let count = out.withUnsafeMutableBytes { queue.take(into: $0.baseAddress!, max: max) }
            taken += out[..<count]
        }
        // A large backlog taken in small pieces while more arrives: the taken prefix passes
        // 64 KiB and half the storage, so the queue compacts, more than once.
        append(100_000)
        for _ in 0..<60 {
            take(4_096)
            append(1_000)
            #expect(queue.count == expected.count - taken.count)
        }
        while !queue.isEmpty { take(7_000) }
        // Drained, then used again.
        append(10)
        take(3)
        take(100)
        #expect(queue.isEmpty && taken.count == expected.count)
        #expect(taken == expected)
    }

    @Test("a download's buffer waits for its reader instead of overflowing, and a cut-off reads as an error, not an end")
    func downloadBuffer() async {
        let buffer = EventStreamBuffer(capacity: 100, resumable: false)
        let page = [UInt8](repeating: UInt8(ascii: "x"), count: 150)
        #expect(page.withUnsafeBytes { buffer.write(bytes: $0) })
        #expect(!buffer.overflowed && !buffer.isClosed)
        var out = [UInt8](repeating: 0, count: 200)
        #expect(out.withUnsafeMutableBytes { buffer.read(into: $0.baseAddress!, max: 100, suspend: {}, resume: {}) } == 100)
        #expect(await buffer.drain(patience: .milliseconds(100)))
        #expect(page.withUnsafeBytes { buffer.write(bytes: $0) })
        #expect(!(await buffer.drain(patience: .milliseconds(50))), "nobody reads: cut off")
        #expect(buffer.wasAborted && buffer.isClosed)
        #expect(out.withUnsafeMutableBytes { buffer.read(into: $0.baseAddress!, max: 100, suspend: {}, resume: {}) } == -2)

        let finished = EventStreamBuffer(capacity: 100, resumable: false)
        finished.close()
        #expect(out.withUnsafeMutableBytes { finished.read(into: $0.baseAddress!, max: 100, suspend: {}, resume: {}) } == -1)
    }
}

/// Bytes a sink collects.
private final class Collected: @unchecked Sendable {
    var data = Data()
    func append(_ bytes: UnsafeRawBufferPointer) { data.append(contentsOf: bytes) }
}
