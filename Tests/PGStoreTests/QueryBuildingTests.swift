import Testing
@testable import PGStore

@Suite("Building statements: placeholders, fragments and their numbering")
struct QueryBuildingTests {
    @Test("each interpolated value becomes the next placeholder, in order")
    func valuesBecomePlaceholders() {
        let query: PGQuery = "SELECT \(Int64(7)), \("a'b"), \(String?.none)"
        #expect(query.sql == "SELECT $1, $2, $3")
        #expect(query.parameterTexts == ["7", "a'b", nil])
    }

    @Test("text made once with values bound to it is the interpolated statement: same text, types and values")
    func textMadeOnceWithValues() {
        let interpolated: PGQuery = "SELECT \(Int64(7)), \("a'b"), \(String?.none), \(Int64?.none)"
        var bound = PGQuery(unsafeSQL: interpolated.sql, parameterCapacity: 4)
        bound.bindNext(Int64(7))
        bound.bindNext("a'b")
        bound.bindNext(String?.none)
        bound.bindNext(Int64?.none)
        #expect(bound.sql == interpolated.sql)
        #expect(bound.parameterTexts == interpolated.parameterTexts)
        #expect(bound.parameterTypeOIDs == interpolated.parameterTypeOIDs)
        #expect(bound.parameterTypeOIDs == [20, 0, 0, 20])
    }

    @Test("an appended fragment's placeholders follow the outer statement's")
    func fragmentsAreRenumbered() {
        let fragment: PGQuery = "x = \(Int64(1)) AND y = \("two")"
        let query: PGQuery = "SELECT \("zero") WHERE \(fragment) AND z = \(Int64(3))"
        #expect(query.sql == "SELECT $1 WHERE x = $2 AND y = $3 AND z = $4")
        #expect(query.parameterTexts == ["zero", "1", "two", "3"])
    }

    @Test("numbering crosses ten, and a placeholder may end the text")
    func multiDigitPlaceholders() {
        var query = PGQuery(unsafeSQL: "SELECT 1")
        for index in 1...9 { query.append(unsafeSQL: ", " + query.bind(Int64(index))) }
        let tail: PGQuery = " WHERE a = \(Int64(10)) OR b = \(Int64(11))"
        query.append(tail)
        #expect(query.sql.hasSuffix("$8, $9 WHERE a = $10 OR b = $11"))
        #expect(query.parameterCount == 11)
    }

    @Test("dollar signs inside quotes and a bare dollar are left alone; multi-byte text survives")
    func quotedDollarsUntouched() {
        let fragment: PGQuery = "note = 'costs $1 — or €2' AND \"col$1\" = \(Int64(5)) AND t = 'ünïcödé $' AND $ = \("x")"
        let query: PGQuery = "SELECT \(Int64(0)) WHERE \(fragment)"
        #expect(query.sql == "SELECT $1 WHERE note = 'costs $1 — or €2' AND \"col$1\" = $2 AND t = 'ünïcödé $' AND $ = $3")
        #expect(query.parameterTexts == ["0", "5", "x"])
    }
}
