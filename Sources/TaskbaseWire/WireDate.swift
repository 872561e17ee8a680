import Foundation

/// Times on the wire: `2026-03-10T12:00:00.001000Z`, six fractional digits, UTC. The `Date`
/// read back is the one `TaskClock.now()` made (microseconds over 1,000,000), so values compare
/// equal across the wire.
public enum WireDate {
    /// The text of `date`, rounded to the microsecond.
    public static func text(_ date: Date) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(27)
        append(date, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `text(date)` as UTF-8 to `bytes`, in place (a point read's document writes two
    /// times and its log line one; a buffer of their own was an allocation each): worked out
    /// from the day count for the years 1600 to 9999 (Foundation's ISO 8601 formatter was a
    /// tenth of a point read's CPU), by that formatter otherwise (which writes Julian dates
    /// before October 1582).
    static func append(_ date: Date, to bytes: inout [UInt8]) {
        let micros = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
        let (whole, fraction) = floorDivision(micros, by: 1_000_000)
        let (days, secondOfDay) = floorDivision(whole, by: 86_400)
        let (year, month, day) = civilDate(daysSince1970: days)
        guard (1600...9999).contains(year) else {
            bytes.append(contentsOf: foundationText(whole: whole, fraction: fraction).utf8)
            return
        }
        func digits(_ value: Int64, _ count: Int) {
            var divisor: Int64 = 1
            for _ in 1..<count { divisor *= 10 }
            while divisor > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
                divisor /= 10
            }
        }
        digits(year, 4)
        bytes.append(UInt8(ascii: "-"))
        digits(month, 2)
        bytes.append(UInt8(ascii: "-"))
        digits(day, 2)
        bytes.append(UInt8(ascii: "T"))
        digits(secondOfDay / 3_600, 2)
        bytes.append(UInt8(ascii: ":"))
        digits(secondOfDay / 60 % 60, 2)
        bytes.append(UInt8(ascii: ":"))
        digits(secondOfDay % 60, 2)
        bytes.append(UInt8(ascii: "."))
        digits(fraction, 6)
        bytes.append(UInt8(ascii: "Z"))
    }

    /// The text through Foundation's ISO 8601 formatter, for the years the day count does not write.
    static func foundationText(whole: Int64, fraction: Int64) -> String {
        let base = Date(timeIntervalSince1970: TimeInterval(whole)).formatted(.iso8601)
        let digits = String(fraction)
        return base.dropLast() + "." + String(repeating: "0", count: 6 - digits.count) + digits + "Z"
    }

    /// Quotient and remainder rounded towards minus infinity (the remainder is never negative).
    private static func floorDivision(_ value: Int64, by divisor: Int64) -> (Int64, Int64) {
        let (quotient, remainder) = value.quotientAndRemainder(dividingBy: divisor)
        return remainder < 0 ? (quotient - 1, remainder + divisor) : (quotient, remainder)
    }

    /// The proleptic Gregorian (year, month, day) of a day count from 1970-01-01, by whole
    /// 400-year eras of 146,097 days, each counted from a March 1st.
    static func civilDate(daysSince1970 days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468  // days from 0000-03-01
        let (era, dayOfEra) = floorDivision(shifted, by: 146_097)
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153  // 0 is March
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// The time `text` names: ISO 8601 in UTC (`Z`), with up to six fractional digits or none.
    public static func date(_ text: String) -> Date? {
        guard text.hasSuffix("Z") else { return nil }
        let body = text.dropLast()
        let parts = body.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = try? Date(String(parts[0]) + "Z", strategy: .iso8601) else { return nil }
        var micros = Int64(whole.timeIntervalSince1970) * 1_000_000
        if parts.count == 2 {
            let digits = parts[1]
            guard (1...6).contains(digits.count), digits.allSatisfy(\.isASCII), let value = Int64(digits), value >= 0 else { return nil }
            micros += value * Int64(pow(10, Double(6 - digits.count)))
        }
        return Date(timeIntervalSince1970: Double(micros) / 1_000_000)
    }
}
