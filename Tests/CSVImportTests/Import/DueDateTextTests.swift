import CSVImport
import TaskCore
import Testing

@Suite("Due date forms")
struct DueDateTextTests {
    func parse(_ text: String) throws -> CalendarDate? {
        var text = text
        return try text.withUTF8 { try DueDateText.parse($0) }
    }

    @Test(
        "the documented forms all read as the same day",
        arguments: [
            "2026-03-10", " 2026-03-10 ", "2026/03/10", "2026.3.10", "10.03.2026", "10.3.2026",
            "2026-03-10T09:30:00Z", "2026-03-10 00:00:00",
        ])
    func acceptedForms(text: String) throws {
        #expect(try parse(text) == CalendarDate(year: 2026, month: 3, day: 10))
    }

    @Test("an empty cell is no due date")
    func empty() throws {
        #expect(try parse("") == nil)
        #expect(try parse("   ") == nil)
    }

    @Test("day and month order that differs between countries is refused, not guessed", arguments: ["03/10/2026", "10-03-2026", "3/4/2026"])
    func ambiguous(text: String) {
        #expect(
            throws: TaskError.validation(
                field: "dueDate", reason: "\"\(text)\" is ambiguous: the day or the month may come first; write it as YYYY-MM-DD")
        ) {
            try parse(text)
        }
    }

    @Test(
        "a date that does not exist is TaskCore's refusal, in whichever form it was written", arguments: ["2026-02-30", "30.02.2026", "2026/02/30"])
    func notARealDate(text: String) {
        #expect(throws: TaskError.validation(field: "dueDate", reason: "2026-02-30 is not a real date")) { try parse(text) }
    }

    @Test("anything else is refused with the ISO form named", arguments: ["next friday", "2026-03", "20260310", "10.03.26"])
    func unknownForms(text: String) {
        #expect(throws: TaskError.validation(field: "dueDate", reason: "\"\(text)\" is not a date in the form YYYY-MM-DD")) { try parse(text) }
    }
}
