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
