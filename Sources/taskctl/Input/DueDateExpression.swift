import TaskCore

/// A date as people type it on the command line: an ISO date (`2026-12-24`), `today`,
/// `tomorrow`, `yesterday`, or a number of days or weeks from today (`+3d`, `-1d`, `+2w`).
/// Relative forms are resolved against the `today` they are given, so tests can fix it.
enum DueDateExpression {
    /// What the help and the error messages list as accepted.
    static let accepted = "YYYY-MM-DD, today, tomorrow, yesterday, +3d, -1d or +2w"

    /// The largest offset accepted, in days (about a hundred years).
    static let maximumOffsetDays = 36_600

    /// The date `text` names as of `today`, or nil when it is not one of the accepted forms.
    static func resolve(_ text: String, today: CalendarDate) -> CalendarDate? {
        let word = text.trimmingCharacters(in: .whitespaces).lowercased()
        switch word {
        case "today": return today
        case "tomorrow": return today.adding(days: 1)
        case "yesterday": return today.adding(days: -1)
        default: break
        }
        if let offset = offsetDays(word) { return today.adding(days: offset) }
        return try? CalendarDate(iso: word)
    }

    /// `+3d` → 3, `-1d` → -1, `+2w` → 14; nil for anything else.
    private static func offsetDays(_ word: String) -> Int? {
        guard let sign = word.first, sign == "+" || sign == "-", let unit = word.last else { return nil }
        let digits = word.dropFirst().dropLast()
        guard !digits.isEmpty, digits.count <= 5, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
            let count = Int(digits)
        else { return nil }
        let days: Int
        switch unit {
        case "d": days = count
        case "w": days = count * 7
        default: return nil
        }
        guard days <= maximumOffsetDays else { return nil }
        return sign == "-" ? -days : days
    }
}
