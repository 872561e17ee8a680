import Foundation

/// Times on the wire: `2026-03-10T12:00:00.001000Z`, six fractional digits, UTC. The `Date`
/// read back is the one `TaskClock.now()` made (microseconds over 1,000,000), so values compare
/// equal across the wire.
public enum WireDate {
    /// The text of `date`, rounded to the microsecond.
    public static func text(_ date: Date) -> String {
        let micros = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
        let seconds = micros.quotientAndRemainder(dividingBy: 1_000_000)
        let (whole, fraction) = seconds.remainder < 0 ? (seconds.quotient - 1, seconds.remainder + 1_000_000) : seconds
        let base = Date(timeIntervalSince1970: TimeInterval(whole)).formatted(.iso8601)
        let digits = String(fraction)
        return base.dropLast() + "." + String(repeating: "0", count: 6 - digits.count) + digits + "Z"
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
