import Foundation
import Testing

@testable import TaskbaseClient

@Suite("The client's kept answers for conditional GETs")
struct ConditionalCacheTests {
    static func answer(_ status: Int = 200, tag: String? = #"W/"abc""#, bytes: Int = 2) -> HTTPResponse {
        HTTPResponse(status: status, headers: tag.map { ["ETag": $0] } ?? [:], body: Data(repeating: 0x61, count: bytes))
    }

    @Test("only a 200 with a weak tag and a body up to 1 MiB is kept; any other answer forgets the URL")
    func whatIsKept() {
        let cache = ConditionalCache()
        cache.remember(Self.answer(), for: "a")
        #expect(cache.entry(for: "a")?.tag == #"W/"abc""#)
        for refused in [
            Self.answer(tag: #""3""#), Self.answer(tag: nil), Self.answer(404), Self.answer(bytes: ConditionalCache.maximumBodyBytes + 1),
        ] {
            cache.remember(Self.answer(), for: "b")
            cache.remember(refused, for: "b")
            #expect(cache.entry(for: "b") == nil, "\(refused.status) \(refused.headers)")
        }
        #expect(cache.entry(for: "a") != nil)
    }

    @Test("a 304 brings the kept answer's headers up to date, not the ones that describe a body")
    func refreshedHeaders() throws {
        let cache = ConditionalCache()
        let kept = HTTPResponse(status: 200, headers: ["ETag": #"W/"abc""#, "Content-Type": "application/json", "x-old": "1"], body: Data("[]".utf8))
        cache.remember(kept, for: "u")
        let entry = try #require(cache.entry(for: "u"))
        let notModified = HTTPResponse(
            status: 304, headers: ["etag": #"W/"abc""#, "Link": "<next>; rel=\"next\"", "Content-Length": "0", "X-Old": "2"], body: Data())
        let refreshed = cache.refreshed(entry, with: notModified, for: "u")
        #expect(refreshed.status == 200 && refreshed.body == Data("[]".utf8))
        #expect(refreshed.header("Link") == "<next>; rel=\"next\"" && refreshed.header("x-old") == "2")
        #expect(refreshed.header("Content-Type") == "application/json" && refreshed.header("Content-Length") == nil)
        #expect(refreshed.headers.keys.filter { $0.lowercased() == "etag" }.count == 1)
        #expect(cache.entry(for: "u")?.response.header("Link") == "<next>; rel=\"next\"", "kept as updated")
    }

    @Test("at most 64 answers, the least recently used going first")
    func bounded() {
        let cache = ConditionalCache()
        for index in 0..<ConditionalCache.capacity { cache.remember(Self.answer(), for: "u\(index)") }
        #expect(cache.entry(for: "u0") != nil, "u0 used again: u1 is now the oldest")
        cache.remember(Self.answer(), for: "new")
        #expect(cache.entry(for: "u1") == nil)
        #expect(cache.entry(for: "u0") != nil && cache.entry(for: "new") != nil && cache.entry(for: "u2") != nil)
    }
}
