import Foundation
import TaskCore
import Testing

@Suite("Cursors and list semantics")
struct CursorTests {
    @Test("a cursor survives encoding for every sort and direction, and is URL-safe text", arguments: TaskSort.allCases)
    func roundTrip(sort: TaskSort) throws {
        for descending in [false, true] {
            let cursor = TaskCursor(after: Fixtures.task(42, due: nil, priority: .high), sort: sort, descending: descending)
            let decoded = try TaskCursor(encoded: cursor.encoded)
            #expect(decoded == cursor)
            #expect(cursor.encoded.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        }
    }

    @Test("anything but a cursor token is a validation error on cursor", arguments: ["", "abc", "dDEubnVtYmVyLnguMS4y", "t1.number.a.1.2"])
    func rejectsGarbage(token: String) {
        #expect(throws: TaskError.self) { try TaskCursor(encoded: token) }
    }

    @Test("a query refuses a cursor from another order")
    func cursorBelongsToItsOrder() {
        let cursor = TaskCursor(after: Fixtures.task(1), sort: .number, descending: false)
        #expect(throws: TaskError.self) { try TaskQuery(sort: .due, after: cursor).validate() }
        #expect(throws: TaskError.self) { try TaskQuery(descending: true, after: cursor).validate() }
        #expect(throws: Never.self) { try TaskQuery(after: cursor).validate() }
    }

    @Test("a due-date order puts tasks without a date last in both directions")
    func dueOrderNullsLast() {
        let tasks = [Fixtures.task(1), Fixtures.task(2, due: Fixtures.today), Fixtures.task(3, due: Fixtures.today.adding(days: 1))]
        #expect(TaskQuery(sort: .due, limit: 10).page(of: tasks).tasks.map(\.key.number) == [2, 3, 1])
        #expect(TaskQuery(sort: .due, descending: true, limit: 10).page(of: tasks).tasks.map(\.key.number) == [3, 2, 1])
    }

    @Test("a page ends with a cursor only when more rows follow, and the cursor continues after the last row")
    func pageCursor() {
        let tasks = (1...5).map { Fixtures.task($0) }
        let first = TaskQuery(limit: 2).page(of: tasks)
        #expect(first.tasks.map(\.key.number) == [1, 2])
        let next = TaskQuery(limit: 2, after: first.nextCursor)
        #expect(next.page(of: tasks.filter { next.matches($0, today: Fixtures.today) }).tasks.map(\.key.number) == [3, 4])
        #expect(TaskQuery(limit: 5).page(of: tasks).nextCursor == nil)
    }
}
