import TaskCore
import Testing
@testable import taskctl

@Suite("Due dates as people type them")
struct DueDateExpressionTests {
    let today = CalendarDate(year: 2026, month: 11, day: 30)!

    @Test(
        "words and offsets count from today, across month and year ends",
        arguments: [
            ("today", "2026-11-30"), ("tomorrow", "2026-12-01"), ("yesterday", "2026-11-29"),
            ("+3d", "2026-12-03"), ("-1d", "2026-11-29"), ("+0d", "2026-11-30"), ("+2w", "2026-12-14"),
            ("+32d", "2027-01-01"), ("-30d", "2026-10-31"), ("  Tomorrow ", "2026-12-01"), ("+3D", "2026-12-03"),
        ])
    func relative(text: String, expected: String) throws {
        #expect(DueDateExpression.resolve(text, today: today)?.description == expected)
    }

    @Test("ISO dates are taken as they are, leap days included")
    func iso() {
        #expect(DueDateExpression.resolve("2026-12-24", today: today)?.description == "2026-12-24")
        #expect(DueDateExpression.resolve("2028-02-29", today: today)?.description == "2028-02-29")
    }

    @Test(
        "anything else is refused",
        arguments: [
            "", "soon", "3d", "+d", "+3", "+3m", "++3d", "+-3d", "+ 3d", "+999999d", "+40000d", "2026-02-30", "2026-2-3", "30.11.2026", "+٣d",
        ])
    func refused(text: String) {
        #expect(DueDateExpression.resolve(text, today: today) == nil)
    }

    @Test("an unreadable --due is a usage error naming the option and the accepted forms")
    func usageError() throws {
        let values = try CommandLineTests.values(["--as", "a@example.com", "task", "add", "--team", "CORE", "T", "--due", "someday"])
        #expect {
            _ = try values.date("due", today: today)
        } throws: { error in
            "\(error)" == "invalid value 'someday' for '--due': expected \(DueDateExpression.accepted)"
        }
    }
}
