/// The text of one progress update: `12,345 rows · 4,321 rows/s · 42%`.
public enum ProgressLine {
    /// The line for `count` units after `elapsed` seconds, with a percentage when `fraction` is known.
    public static func text(count: Int, unit: String, elapsed: Double, fraction: Double?) -> String {
        var parts = ["\(grouped(count)) \(unit)"]
        if elapsed > 0 {
            parts.append("\(grouped(Int((Double(count) / elapsed).rounded()))) \(unit)/s")
        }
        if let fraction {
            parts.append("\(Int((min(max(fraction, 0), 1) * 100).rounded(.down)))%")
        }
        return parts.joined(separator: " · ")
    }

    /// `1234567` as `1,234,567`, independent of the locale so logs read the same everywhere.
    public static func grouped(_ number: Int) -> String {
        let digits = String(number.magnitude)
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return number < 0 ? "-" + out : out
    }
}
