import TaskCore

/// The written forms of a due date an import accepts, read straight from the cell's bytes.
///
/// | form                           | example               | read as        |
/// |--------------------------------|-----------------------|----------------|
/// | ISO `YYYY-MM-DD`               | `2026-03-10`          | 10 March 2026  |
/// | ISO with a time (time ignored) | `2026-03-10T09:30:00Z`, `2026-03-10 00:00:00`, `2026-03-10 9:30 AM` | 10 March 2026 |
/// | year first, `/` or `.`         | `2026/03/10`, `2026.3.10` | 10 March 2026 |
/// | day first with dots            | `10.03.2026`, `1.3.2026` | 10 March 2026 (dots are always day-first) |
///
/// `03/10/2026` and `10-03-2026` are refused: whether the day or the month comes first differs
/// between countries, and guessing would silently move tasks by months. The written date is
/// taken as is, with no time-zone conversion. Whether the date exists is TaskCore's call
/// (`CalendarDate`), as is the wording of every refusal.
public enum DueDateText {
    /// The date in `bytes`, nil for an empty cell, or a validation error on `field`.
    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>, field: String = "dueDate") throws -> CalendarDate? {
        var start = bytes.startIndex, end = bytes.endIndex
        while start < end, bytes[start] == space { start += 1 }
        while end > start, bytes[end - 1] == space { end -= 1 }
        guard start < end else { return nil }
        var scanner = Scanner(bytes: bytes, position: start, end: end)
        if let (year, month, day) = scanner.yearMonthDay() {
            if let date = CalendarDate(year: year, month: month, day: day) { return date }
            _ = try CalendarDate(iso: isoText(year, month, day), field: field)
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        if scanner.isAmbiguous {
            throw TaskError.validation(
                field: field,
                reason: "\"\(text)\" is ambiguous: the day or the month may come first; write it as YYYY-MM-DD")
        }
        return try CalendarDate(iso: text, field: field)
    }

    /// The text of a date as ISO, even for numbers that name no real date.
    private static func isoText(_ year: Int, _ month: Int, _ day: Int) -> String {
        func padded(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))"
    }

    private static let space = UInt8(ascii: " ")

    /// Three groups of digits and the separators between them.
    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var position: Int
        let end: Int
        /// Set when the text has the shape of a day/month-order date that cannot be decided.
        var isAmbiguous = false

        init(bytes: UnsafeBufferPointer<UInt8>, position: Int, end: Int) {
            self.bytes = bytes
            self.position = position
            self.end = end
        }

        /// Year, month and day when the text is one of the accepted forms.
        mutating func yearMonthDay() -> (Int, Int, Int)? {
            guard let (first, firstDigits) = number(), let separator = separator(),
                let (second, secondDigits) = number(), self.separator() == separator,
                let (third, thirdDigits) = number()
            else { return nil }
            let rest = position
            if firstDigits == 4, (1...2).contains(secondDigits), (1...2).contains(thirdDigits) {
                let isoWithTime =
                    separator == UInt8(ascii: "-") && rest < end
                    && (bytes[rest] == UInt8(ascii: "T") || bytes[rest] == UInt8(ascii: " "))
                if rest == end { return (first, second, third) }
                if isoWithTime {
                    position = rest + 1
                    if timeOfDay() { return (first, second, third) }
                }
                return nil
            }
            guard rest == end, (1...2).contains(firstDigits), (1...2).contains(secondDigits), thirdDigits == 4 else { return nil }
            if separator == UInt8(ascii: ".") { return (third, second, first) }
            isAmbiguous = true
            return nil
        }

        /// Whether the rest is a time of day, which the date ignores but which must be one:
        /// `HH`, `H:MM` or `HH:MM`, then `:SS` and a fraction if any, then, after a space or
        /// not, a zone (`Z`, `+HH`, `+HHMM`, `+HH:MM`, or a name of letters such as `UTC`) or
        /// `AM`/`PM`, if any: what ISO 8601, spreadsheets, Ruby's and Go's time formats write.
        /// Anything else (`2026-03-10 or 2026-04-01`, `2026-03-10Tgarbage`, `2026-03-10 25:99`)
        /// is not a date.
        mutating func timeOfDay() -> Bool {
            guard let (hour, hourDigits) = number(), hourDigits <= 2, hour <= 23 else { return false }
            var hasMinutes = false
            if take(":") {
                guard let (minute, minuteDigits) = number(), minuteDigits == 2, minute <= 59 else { return false }
                hasMinutes = true
                if take(":") {
                    guard let (second, secondDigits) = number(), secondDigits == 2, second <= 60 else { return false }
                    if take(".") || take(",") {
                        let digitsStart = position
                        while position < end, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) { position += 1 }
                        guard position > digitsStart else { return false }
                    }
                }
            }
            guard hasMinutes || hourDigits == 2 else { return false }
            _ = take(" ")
            if position == end { return true }
            if take("Z") || take("z") { return position == end }
            if take("+") || take("-") {
                guard offset() else { return false }
                if position == end { return true }
                guard take(" ") else { return false }
            }
            let word = position
            while position < end, (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(bytes[position] & 0xDF) { position += 1 }
            guard position == end, (2...5).contains(position - word) else { return false }
            let name = String(decoding: UnsafeBufferPointer(rebasing: bytes[word..<end]), as: UTF8.self)
            if name.uppercased() == "AM" || name.uppercased() == "PM" { return hasMinutes && (1...12).contains(hour) }
            // A zone's name (UTC, CET, CEST) is written in capitals.
            return name == name.uppercased()
        }

        /// A zone offset after its sign: `HH`, `HHMM` or `HH:MM`.
        private mutating func offset() -> Bool {
            let zoneStart = position
            guard let (zone, zoneDigits) = number() else { return false }
            if zoneDigits == 4 { return zone % 100 <= 59 && zone / 100 <= 14 }
            guard zoneDigits == 2, position - zoneStart == 2, zone <= 14 else { return false }
            if take(":") {
                guard let (zoneMinute, zoneMinuteDigits) = number(), zoneMinuteDigits == 2, zoneMinute <= 59 else { return false }
            }
            return true
        }

        /// Moves past `character` when it is next.
        private mutating func take(_ character: Unicode.Scalar) -> Bool {
            guard position < end, bytes[position] == UInt8(ascii: character) else { return false }
            position += 1
            return true
        }

        /// A run of one to four digits and how many there were.
        private mutating func number() -> (Int, Int)? {
            var value = 0, digits = 0
            while position < end, digits < 5, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
                value = value * 10 + Int(bytes[position] - UInt8(ascii: "0"))
                digits += 1
                position += 1
            }
            return (1...4).contains(digits) ? (value, digits) : nil
        }

        /// `-`, `/` or `.`.
        private mutating func separator() -> UInt8? {
            guard position < end else { return nil }
            let byte = bytes[position]
            guard byte == UInt8(ascii: "-") || byte == UInt8(ascii: "/") || byte == UInt8(ascii: ".") else { return nil }
            position += 1
            return byte
        }
    }
}
