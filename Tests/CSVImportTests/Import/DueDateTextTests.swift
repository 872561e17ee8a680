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
            "2026-03-10T09:30:00Z", "2026-03-10 00:00:00", "2026-03-10T09:30", "2026-03-10T09:30:00.123456+01:00",
            "2026-03-10T23:59:60-0530", "2026-03-10 9:30 am", "2026-03-10 12:00 PM", "2026-03-10T00:00:00+14",
            // Ruby's Time#to_s and Go's time.Time, a zone name, an hour alone (the review found
            // these refused by the first version of the time check).
            "2026-03-10 09:30:00 +0000", "2026-03-10T09:30:00 UTC", "2026-03-10 09:30:00.000 +01:00", "2026-03-10T09",
            "2026-03-10 09:30:00 +0100 CET",
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

    @Test(
        "anything else is refused with the ISO form named",
        arguments: [
            "next friday", "2026-03", "20260310", "10.03.26",
            // A date followed by what is not a time of day (each was read as 10 March before).
            "2026-03-10 or 2026-04-01", "2026-03-10Tgarbage", "2026-03-10 25:99", "2026-03-10T24:00", "2026-03-10T09:3",
            "2026-03-10T09:30:00.", "2026-03-10T09:30Zjunk", "2026-03-10 13:00 PM", "2026-03-10T09:30+1:00",
        ])
    func unknownForms(text: String) {
        #expect(throws: TaskError.validation(field: "dueDate", reason: "\"\(text)\" is not a date in the form YYYY-MM-DD")) { try parse(text) }
    }
}
