/// Durations on the command line and in settings (`TASKBASE_LOCK_TIMEOUT`): a number with `ms`, `s`, `min` or `h`, as PostgreSQL writes
/// its settings (a bare number is milliseconds, as in PostgreSQL). Shown with PGStore's `Duration.displayText`.
public enum DurationText {
    /// Parses `text`, or throws a usage error naming `option` (an option without its dashes, or a
    /// variable). For a limit (`isLimit`, the default) `none` is read as zero, which means no limit.
    public static func parse(_ text: String, option: String, isLimit: Bool = true) throws(UsageError) -> Duration {
        if isLimit, text == none { return .zero }
        let number = text.prefix { $0.isNumber || $0 == "." }
        let unit = text.dropFirst(number.count).trimmingPrefix(" ")
        let seconds: [Substring: Double] = ["": 0.001, "ms": 0.001, "s": 1, "min": 60, "h": 3600]
        guard let value = Double(number), let factor = seconds[Substring(unit)] else {
            throw UsageError(
                "invalid value '\(text)' \(Self.shown(option)): expected a duration like 500ms, 5s, 2min or 1h\(isLimit ? " (0 or none for no limit)" : "")"
            )
        }
        let milliseconds = (value * factor * 1000).rounded()
        guard milliseconds <= Double(maximumMilliseconds) else {
            throw UsageError(
                "invalid value '\(text)' \(Self.shown(option)): at most \(maximumMilliseconds)ms (about 24 days), the longest PostgreSQL takes for a timeout\(isLimit ? "; 0 or none for no limit" : "")"
            )
        }
        return .milliseconds(Int64(milliseconds))
    }

    /// The longest duration read: PostgreSQL's `lock_timeout` and `statement_timeout` are whole
    /// milliseconds in a 32-bit integer, and refuse more (so, once, did a far larger number crash).
    public static let maximumMilliseconds = Int64(Int32.max)

    /// Where the value came from, for messages: `in TASKBASE_LOCK_TIMEOUT` for a variable, as
    /// the parser says it, `for '--lock-timeout'` for an option.
    private static func shown(_ option: String) -> String {
        option.hasPrefix("TASKBASE_") ? "in \(option)" : "for '--\(option)'"
    }

    /// How no limit (a zero duration) is written: `parse` reads it, as it reads back what
    /// PGStore's `Duration.displayText` (the programs' one formatter) writes.
    public static let none = "none"
}
