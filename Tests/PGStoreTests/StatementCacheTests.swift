import Testing
@testable import PGStore

@Suite("The statement cache: lookups, recent statements, eviction")
struct StatementCacheTests {
    /// `text` in a string of its own (not sharing storage with `text`).
    func copy(_ text: String) -> String { String(decoding: Array(text.utf8), as: UTF8.self) }

    @Test("a statement looked up again is found among the recent ones, also from a string of equal content")
    func recentLookups() {
        var cache = PGStatementCache(capacity: 10)
        let read: PGQuery = "SELECT * FROM tasks WHERE id = \(Int64(1))"
        let name = cache.insert(read)
        #expect(cache.lookup(read) == name)
        let found = cache.recent
        var sameText = PGQuery(unsafeSQL: copy(read.sql))
        sameText.bindNext(Int64(2))
        #expect(cache.lookup(sameText) == name)
        #expect(cache.recent == found, "found by comparison, not hashed and remembered again")
        var otherTypes = PGQuery(unsafeSQL: read.sql)
        otherTypes.bindNext("1")
        #expect(cache.lookup(otherTypes) == nil)
        #expect(cache.lookup(PGQuery(unsafeSQL: "SELECT 2")) == nil)
    }

    @Test("the least recently used is evicted, whether found recently or by hashing, and every other still finds its own name")
    func eviction() {
        var cache = PGStatementCache(capacity: 3)
        let queries = (0..<6).map { PGQuery(unsafeSQL: "SELECT \($0)") }
        var names = [String: String]()
        for query in queries[0..<3] { names[query.sql] = cache.insert(query) }
        for query in [queries[0], queries[2], queries[1], queries[0], queries[2]] { #expect(cache.lookup(query) == names[query.sql]) }
        names[queries[3].sql] = cache.insert(queries[3])
        #expect(cache.pendingDeallocations == [names[queries[1].sql]!])
        #expect(cache.lookup(queries[1]) == nil)
        for query in [queries[0], queries[2], queries[3], queries[0]] {
            #expect(cache.lookup(PGQuery(unsafeSQL: copy(query.sql))) == names[query.sql])
        }
        names[queries[4].sql] = cache.insert(queries[4])
        #expect(cache.pendingDeallocations == [names[queries[1].sql]!, names[queries[2].sql]!])
        for query in [queries[3], queries[0], queries[4]] { #expect(cache.lookup(query) == names[query.sql]) }
        #expect(cache.count == 3)
    }

    @Test("an invalidated or removed statement is forgotten and moves no other statement's name")
    func invalidation() {
        var cache = PGStatementCache(capacity: 5)
        let queries = (0..<4).map { PGQuery(unsafeSQL: "SELECT \($0)") }
        let names = queries.map { cache.insert($0) }
        for query in queries.reversed() { _ = cache.lookup(query) }
        cache.invalidate(sql: queries[0].sql, name: names[0])
        #expect(cache.pendingDeallocations == [names[0]])
        cache.remove(sql: queries[2].sql, name: names[2])
        cache.remove(sql: queries[1].sql, name: "not its name")
        #expect(cache.pendingDeallocations == [names[0]])
        #expect(queries.map { cache.lookup($0) } == [nil, names[1], nil, names[3]])
        #expect(cache.contains(sql: queries[1].sql) && !cache.contains(sql: queries[2].sql))
        #expect(cache.count == 2)
    }
}
