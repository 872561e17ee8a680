/// A calendar date without time or zone: PostgreSQL's `date`.
public struct PGDate: Sendable, Hashable, Comparable, CustomStringConvertible, Codable {
    public var year: Int
    public var month: Int
    public var day: Int

    /// A date; `nil` unless it is a real day of the proleptic Gregorian calendar.
    public init?(year: Int, month: Int, day: Int) {
        guard (1...12).contains(month), day >= 1, day <= PGDate.daysIn(month: month, year: year) else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// Parses `YYYY-MM-DD` (as PostgreSQL prints it with DateStyle ISO, with ` BC` for years before 1).
    public init?(_ text: String) {
        var bytes = Array(text.utf8)
        var bc = false
        if bytes.count > 3, bytes.suffix(3) == Array(" BC".utf8) {
            bc = true
            bytes.removeLast(3)
        }
        guard let parsed = bytes.withUnsafeBufferPointer({ DateTimeText.parseDate($0, from: 0) }),
            parsed.end == bytes.count
        else { return nil }
        self.init(year: bc ? 1 - parsed.year : parsed.year, month: parsed.month, day: parsed.day)
    }

    /// Days since 1970-01-01 (negative before).
    public var daysSinceEpoch: Int { DateTimeText.daysFromCivil(year: year, month: month, day: day) }

    /// The date `days` after 1970-01-01.
    public init(daysSinceEpoch days: Int) {
        let civil = DateTimeText.civilFromDays(days)
        self.year = civil.year
        self.month = civil.month
        self.day = civil.day
    }

    /// ISO form, `YYYY-MM-DD`, with ` BC` for years before 1 as PostgreSQL expects.
    public var description: String {
        let shownYear = year > 0 ? year : 1 - year
        func pad(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(shownYear, 4))-\(pad(month, 2))-\(pad(day, 2))\(year > 0 ? "" : " BC")"
    }

    public static func < (lhs: PGDate, rhs: PGDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let date = PGDate(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a date: \(text)"))
        }
        self = date
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
