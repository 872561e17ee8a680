import Foundation

/// Parsing and printing of PostgreSQL's ISO date/time text, on bytes, without Foundation's
/// date formatters (which are slow and locale-dependent).
enum DateTimeText {
    /// Days from 1970-01-01 to the given civil date (Howard Hinnant's algorithm).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Reads digits at `index`; returns the value and where they ended.
    @inline(__always)
    static func digits(_ bytes: UnsafeBufferPointer<UInt8>, from index: Int, max: Int = 9) -> (value: Int, end: Int)? {
        var value = 0
        var end = index
        while end < bytes.count, end - index < max, bytes[end] >= 48, bytes[end] <= 57 {
            value = value * 10 + Int(bytes[end] - 48)
            end += 1
        }
        return end > index ? (value, end) : nil
    }

    /// `YYYY-MM-DD` starting at `index`.
    static func parseDate(_ bytes: UnsafeBufferPointer<UInt8>, from index: Int) -> (year: Int, month: Int, day: Int, end: Int)? {
        guard let year = digits(bytes, from: index, max: 9), year.end < bytes.count, bytes[year.end] == UInt8(ascii: "-"),
            let month = digits(bytes, from: year.end + 1, max: 2), month.end < bytes.count,
            bytes[month.end] == UInt8(ascii: "-"),
            let day = digits(bytes, from: month.end + 1, max: 2)
        else { return nil }
        return (year.value, month.value, day.value, day.end)
    }

    /// Parses `timestamptz`/`timestamp` text as PostgreSQL prints it with DateStyle ISO:
    /// `YYYY-MM-DD HH:MM:SS[.ffffff][+HH[:MM[:SS]]][ BC]`, or `infinity`/`-infinity`.
    static func parseTimestamp(_ bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        // A finite timestamp starts with a digit: only text starting otherwise can be an infinity.
        if let first = bytes.first, first == UInt8(ascii: "i") || first == UInt8(ascii: "-") {
            if bytes.elementsEqual("infinity".utf8) { return .distantFuture }
            if bytes.elementsEqual("-infinity".utf8) { return .distantPast }
        }
        var count = bytes.count
        var bc = false
        if count > 3, bytes[count - 3] == 32, bytes[count - 2] == UInt8(ascii: "B"), bytes[count - 1] == UInt8(ascii: "C") {
            bc = true
            count -= 3
        }
        let view = UnsafeBufferPointer(rebasing: bytes[0..<count])
        guard let date = parseDate(view, from: 0), date.end < count, view[date.end] == 32 || view[date.end] == UInt8(ascii: "T"),
            let hour = digits(view, from: date.end + 1, max: 2), hour.end < count, view[hour.end] == UInt8(ascii: ":"),
            let minute = digits(view, from: hour.end + 1, max: 2), minute.end < count, view[minute.end] == UInt8(ascii: ":"),
            let second = digits(view, from: minute.end + 1, max: 2)
        else { return nil }
        var index = second.end
        var micros = 0
        if index < count, view[index] == UInt8(ascii: ".") {
            guard let fraction = digits(view, from: index + 1, max: 9) else { return nil }
            var scaled = fraction.value
            var width = fraction.end - index - 1
            while width < 6 { scaled *= 10; width += 1 }
            while width > 6 { scaled /= 10; width -= 1 }
            micros = scaled
            index = fraction.end
        }
        var offsetSeconds = 0
        if index < count, view[index] == UInt8(ascii: "+") || view[index] == UInt8(ascii: "-") || view[index] == UInt8(ascii: "Z") {
            if view[index] == UInt8(ascii: "Z") {
                index += 1
            } else {
                let sign = view[index] == UInt8(ascii: "-") ? -1 : 1
                guard let oh = digits(view, from: index + 1, max: 2) else { return nil }
                var total = oh.value * 3600
                index = oh.end
                if index < count, view[index] == UInt8(ascii: ":"), let om = digits(view, from: index + 1, max: 2) {
                    total += om.value * 60
                    index = om.end
                    if index < count, view[index] == UInt8(ascii: ":"), let os = digits(view, from: index + 1, max: 2) {
                        total += os.value
                        index = os.end
                    }
                }
                offsetSeconds = sign * total
            }
        }
        guard index == count else { return nil }
        let year = bc ? 1 - date.year : date.year
        let days = daysFromCivil(year: year, month: date.month, day: date.day)
        let seconds = days * 86_400 + hour.value * 3600 + minute.value * 60 + second.value - offsetSeconds
        return Date(timeIntervalSince1970: Double(seconds) + Double(micros) / 1_000_000)
    }

    /// Microseconds from 1970-01-01 to 2000-01-01, PostgreSQL's epoch.
    static let postgresEpochMicroseconds: Int64 = 946_684_800_000_000

    /// A date as PostgreSQL's binary `timestamptz`: microseconds since 2000-01-01 UTC, rounded
    /// to the nearest (halves away from zero); `distantFuture`/`distantPast` are the largest
    /// and smallest values, PostgreSQL's `infinity` and `-infinity`.
    static func binaryTimestamp(_ date: Date) -> Int64 {
        if date == .distantFuture { return .max }
        if date == .distantPast { return .min }
        let micros = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
        // Some 292,000 years BC the difference overflows or lands on `-infinity`: send a value
        // the server refuses as out of range, as it refuses such a date in text.
        let (binary, overflow) = micros.subtractingReportingOverflow(postgresEpochMicroseconds)
        return overflow || binary == .min ? .min + 1 : binary
    }

    /// A binary `timestamptz` (see `binaryTimestamp`) as UTC ISO text with microseconds,
    /// the form PostgreSQL reads back exactly.
    static func formatTimestamp(binary: Int64) -> String {
        if binary == .max { return "infinity" }
        if binary == .min { return "-infinity" }
        let micros = Int(binary) + Int(postgresEpochMicroseconds)
        var seconds = micros / 1_000_000
        var fraction = micros % 1_000_000
        if fraction < 0 { fraction += 1_000_000; seconds -= 1 }
        var days = seconds / 86_400
        var secondOfDay = seconds % 86_400
        if secondOfDay < 0 { secondOfDay += 86_400; days -= 1 }
        let civil = civilFromDays(days)
        let bc = civil.year <= 0
        let year = bc ? 1 - civil.year : civil.year
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
        }
        var text = "\(pad(year, 4))-\(pad(civil.month, 2))-\(pad(civil.day, 2)) "
        text += "\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2))"
        if fraction != 0 { text += "." + pad(fraction, 6) }
        text += "+00"
        if bc { text += " BC" }
        return text
    }
}
