import CSVImport
import Foundation
import TaskCore
import Testing

@testable import TaskbaseServer

@Suite("gzip: larger GET answers to clients that take it")
struct CompressionTests {
    @Test("Accept-Encoding: gzip or x-gzip with a weight above 0, else * with one; no header, q=0 or a bad weight is no")
    func acceptEncoding() {
        let cases: [(String?, Bool)] = [
            (nil, false), ("", false), ("identity", false), ("br, deflate", false),
            ("gzip", true), ("GZip", true), ("x-gzip", true), ("deflate, gzip;q=0.5", true), (" gzip ; q=1.0 ", true),
            ("gzip;q=0", false), ("gzip; q=0.000", false), ("gzip;q=zero", false), ("gzip;q=0, *", false),
            ("*", true), ("*;q=0", false), ("br;q=1, *;q=0.1", true), ("*;q=0.5, gzip;q=0", false),
        ]
        for (header, takes) in cases {
            #expect(AcceptEncoding.takesGzip(header) == takes, "\(header ?? "no header")")
        }
    }

    @Test("gzip round trip through zlib; a truncated, corrupt or oversized member is refused")
    func roundTrip() throws {
        let text = Array(String(repeating: #"{"title":"Fix the login loop","priority":"high"},"#, count: 200).utf8)
        let packed = try #require(Gzip.compress(text, level: 1))
        #expect(packed.count < text.count / 10)
        #expect(Array(packed.prefix(2)) == [0x1F, 0x8B], "the gzip magic, not zlib's or raw deflate's")
        #expect(Gzip.decompress(packed) == text)
        #expect(Gzip.compress([], level: 9).flatMap { Gzip.decompress($0) } == [])
        #expect(Gzip.decompress(Array(packed.dropLast(4))) == nil)
        var corrupt = packed
        corrupt[corrupt.count / 2] ^= 0xFF
        #expect(Gzip.decompress(corrupt) == nil)
        #expect(Gzip.decompress(Array("not gzip".utf8)) == nil)
        #expect(Gzip.decompress(packed, limit: 1000) == nil)
    }

    @Test("unpacking as a stream: a byte at a time, output many times the buffer, pieces in order; the limit stops a bomb")
    func streamingInflate() throws {
        var text: [UInt8] = []
        for index in 0..<40_000 { text += Array("Write the spec,In Progress,2026-03-10,part \(index / 5_000)\n".utf8) }
        let packed = try #require(Gzip.compress(text, level: 9))
        #expect(text.count > 8 * packed.count, "one read's worth of input unpacks to several output buffers")
        for readSize in [1, 7, 65_536] {
            var source = MemoryByteSource(packed, maxReadSize: readSize)
            var unpacked: [UInt8] = []
            try Gzip.inflate(from: &source, limit: text.count) { piece in
                unpacked += piece
                return true
            }
            let same = unpacked == text
            #expect(same, "read size \(readSize)")
        }
        var capped = MemoryByteSource(packed)
        #expect(throws: Gzip.InflateError.tooLarge(limit: text.count - 1)) {
            try Gzip.inflate(from: &capped, limit: text.count - 1) { _ in true }
        }
        var refused = MemoryByteSource(packed)
        #expect(throws: Gzip.InflateError.io("the unpacked body could not be kept")) {
            try Gzip.inflate(from: &refused, limit: text.count) { _ in false }
        }
        var empty = MemoryByteSource([UInt8]())
        #expect(throws: Gzip.InflateError.notGzip) { try Gzip.inflate(from: &empty, limit: 10) { _ in true } }
    }

    @Test("gzip made piece by piece: the pieces are one gzip of the whole, and a flush makes all so far unpackable at once")
    func streamingDeflate() throws {
        var text: [UInt8] = []
        for index in 0..<30_000 { text += Array("EXT-\(index),Write the spec,In Progress,2026-03-10,\(index % 7)\r\n".utf8) }
        let stream = try #require(Gzip.Stream(level: 1))
        var packed: [UInt8] = []
        var cut = 0
        // Pieces of odd sizes, several larger than zlib's output buffer, a flush after the third.
        for (number, size) in [1, 100, 70_000, 300_000, 5, 500_000].enumerated() {
            let end = min(cut + size, text.count)
            packed += try #require(text[cut..<end].withUnsafeBytes { stream.append($0, flush: number == 2) })
            cut = end
            if number == 2 {
                // What has gone out so far unpacks to everything given so far, though the gzip is not finished.
                var source = MemoryByteSource(packed)
                var unpacked: [UInt8] = []
                #expect(throws: Gzip.InflateError.notGzip) {
                    try Gzip.inflate(from: &source, limit: text.count) { piece in
                        unpacked += piece
                        return true
                    }
                }
                let flushed = unpacked == Array(text[..<cut])
                #expect(flushed)
            }
        }
        packed += try #require(text[cut...].withUnsafeBytes { stream.append($0) })
        packed += try #require(stream.finish())
        let whole = Gzip.decompress(packed, limit: text.count) == text
        #expect(whole)
        #expect(packed.count < text.count / 4)
        #expect(try #require(Gzip.Stream(level: 1)).finish().flatMap { Gzip.decompress($0) } == [], "an empty stream is an empty gzip")
    }

    @Test("an answer made once is gzipped once: what it prepared is sent, not compressed again")
    func preparedOnce() async throws {
        let body = Array(String(repeating: #"{"title":"Fix the login loop"},"#, count: 300).utf8)
        let response = HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: .bytes(body))
        let prepared = ResponseCompression(level: 1, minimumBytes: 1024).prepared(response)
        #expect(prepared.gzippedBody.flatMap { Gzip.decompress($0) } == body)
        var made = prepared
        let levelNine: [UInt8] = try #require(Gzip.compress(body, level: 9))
        made.gzippedBody = levelNine
        #expect(made.gzippedBody != prepared.gzippedBody, "level 9 writes other bytes than level 1")
        var sent = made
        await ResponseCompression(level: 1, minimumBytes: 1024).apply(
            to: &sent, for: HTTPRequest(method: "GET", path: "/openapi.json", headers: ["accept-encoding": "gzip"]))
        #expect(sent.header("Content-Encoding") == "gzip" && sent.bytes == made.gzippedBody)
        #expect(ResponseCompression.standard.prepared(HTTPResponse(status: 200, body: .bytes([1, 2, 3]))).gzippedBody == nil)
        // A body past offLoopBytes is compressed on the global executor: the same gzip.
        let large = Array(String(repeating: #"{"title":"Fix the login loop"},"#, count: 4_000).utf8)
        #expect(large.count >= ResponseCompression.offLoopBytes)
        var big = HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: .bytes(large))
        await ResponseCompression.standard.apply(to: &big, for: HTTPRequest(method: "GET", path: "/v1/teams", headers: ["accept-encoding": "gzip"]))
        #expect(big.header("Content-Encoding") == "gzip" && big.bytes.count < large.count / 10)
        let same = Gzip.decompress(big.bytes) == large
        #expect(same)
    }

    /// A team whose task list is well over 1 KiB.
    static func fixture(compression: ResponseCompression? = .standard) async throws -> ServerFixture {
        let f = try await ServerFixture.start(compression: compression)
        for index in 1...12 {
            _ = try await f.service.createTask(
                in: f.team, try TaskDraft(title: "Task \(index)", notes: String(repeating: "Steps to reproduce. ", count: 20)),
                as: .id(f.member.id))
        }
        return f
    }

    @Test("a list goes gzipped when asked, the same document; Vary either way; a task with its ETag, a POST and a refusal go plain")
    func server() async throws {
        let f = try await Self.fixture()
        let port = f.server.http.port
        let token = try #require(f.tokens["member"])
        let list = "/v1/teams/\(f.team.rawValue)/tasks"
        let plain = try await Self.rawGet(port: port, list, token: token, acceptEncoding: "identity")
        #expect(plain.status == 200 && plain.header("Content-Encoding") == nil)
        #expect(plain.header("Vary") == "Accept-Encoding")
        #expect(plain.body.count > 4096)
        let packed = try await Self.rawGet(port: port, list, token: token, acceptEncoding: "br;q=1, gzip;q=0.8")
        #expect(packed.status == 200)
        #expect(packed.header("Content-Encoding") == "gzip")
        #expect(packed.header("Vary") == "Accept-Encoding")
        #expect(packed.header("Content-Length") == String(packed.body.count))
        #expect(packed.body.count < plain.body.count / 4)
        let unpacked = Gzip.decompress(packed.body) == plain.body
        #expect(unpacked, "the gzipped body unpacks to the plain one")
        // URLSession (as the Swift client uses it) asks for gzip itself and reads it back.
        let viaSession = try await f.client("member").get(list)
        #expect(viaSession.status == 200 && viaSession.header("Content-Encoding") == "gzip")
        let same = viaSession.body == Data(plain.body)
        #expect(same, "URLSession reads back the plain body")
        // HEAD says what GET would send.
        let head = try await Self.rawGet(port: port, list, token: token, acceptEncoding: "gzip", method: "HEAD")
        #expect(head.header("Content-Encoding") == "gzip" && head.header("Content-Length") == String(packed.body.count))

        // A task carries its version as a strong ETag, which If-Match compares: plain, even when large.
        let task = try await Self.rawGet(port: port, "/v1/tasks/\(f.team.rawValue)-1", token: token, acceptEncoding: "gzip")
        #expect(task.status == 200 && task.body.count > 400 && task.header("ETag") == #""1""#)
        #expect(task.header("Content-Encoding") == nil)
        // A POST's answer (a new token's, say) is never compressed.
        let created = try await f.client("member").send(
            "POST", list, json: #"{"title":"Posted","notes":"\#(String(repeating: "x", count: 2000))"}"#, headers: ["Accept-Encoding": "gzip"])
        #expect(created.status == 201 && created.header("Content-Encoding") == nil)
        // The OpenAPI document, asked for without a token, goes as it was gzipped once.
        let openAPI = try await Self.rawGet(port: port, "/openapi.json", token: nil, acceptEncoding: "gzip")
        let openAPIPlain = try await Self.rawGet(port: port, "/openapi.json", token: nil, acceptEncoding: "identity")
        #expect(openAPI.header("Content-Encoding") == "gzip" && openAPIPlain.header("Content-Encoding") == nil)
        let sameDocument = Gzip.decompress(openAPI.body) == openAPIPlain.body
        #expect(sameDocument, "the OpenAPI document gzipped unpacks to the plain one")
        let refused = try await Self.rawGet(port: port, "/v1/teams/\(f.team.rawValue)/tasks", token: nil, acceptEncoding: "gzip")
        #expect(refused.status == 401 && refused.header("Content-Encoding") == nil)
        await f.stop()
    }

    /// `--gzip-level`: the level reaches zlib. A server at level 1 and one at level 9: each list
    /// body is zlib's at that level, byte for byte, and on these lists the two levels differ.
    @Test("--gzip-level 9 sends what zlib's level 9 makes of the list, not level 1's")
    func level() async throws {
        for level: Int32 in [1, 9] {
            let f = try await Self.fixture(compression: ResponseCompression(level: level, minimumBytes: 1024))
            let port = f.server.http.port
            let list = "/v1/teams/\(f.team.rawValue)/tasks"
            let plain = try await Self.rawGet(port: port, list, token: f.tokens["member"], acceptEncoding: "identity").body
            let packed = try await Self.rawGet(port: port, list, token: f.tokens["member"], acceptEncoding: "gzip")
            #expect(packed.header("Content-Encoding") == "gzip")
            #expect(packed.body == Gzip.compress(plain, level: level), "level \(level): the body is not zlib's at that level")
            #expect(Gzip.compress(plain, level: 1) != Gzip.compress(plain, level: 9), "the two levels make the same bytes here")
            await f.stop()
        }
    }

    @Test("without compression (--gzip-level 0) every answer goes plain")
    func off() async throws {
        let f = try await Self.fixture(compression: nil)
        let port = f.server.http.port
        let reply = try await Self.rawGet(port: port, "/v1/teams/\(f.team.rawValue)/tasks", token: f.tokens["member"], acceptEncoding: "gzip")
        #expect(reply.status == 200 && reply.body.count > 4096)
        #expect(reply.header("Content-Encoding") == nil && reply.header("Vary") == nil)
        await f.stop()
    }

    /// One request on its own connection, read whole, the body as sent (URLSession would unpack it).
    static func rawGet(
        port: UInt16, _ path: String, token: String?, acceptEncoding: String, method: String = "GET", headers extra: [String: String] = [:]
    ) async throws -> (status: Int, header: (String) -> String?, body: [UInt8]) {
        let connection = try RawConnection(port: port)
        var headers = extra.merging(["Accept-Encoding": acceptEncoding, "Connection": "close"]) { $1 }
        if let token { headers["Authorization"] = "Bearer \(token)" }
        connection.send("\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers.map { "\($0.key): \($0.value)\r\n" }.joined() + "\r\n")
        #expect(await connection.readUntilClosed())
        let received = Array(connection.received)
        let end = try #require(received.indices.first { Array(received[$0..<min($0 + 4, received.count)]) == Array("\r\n\r\n".utf8) })
        let lines = String(decoding: received[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let status = lines.first?.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        let fields = lines.dropFirst().compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (line[..<colon].lowercased(), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let header: (String) -> String? = { name in fields.last { $0.0 == name.lowercased() }?.1 }
        return (status, header, Array(received[(end + 4)...]))
    }
}
