import Foundation

/// The rules for API tokens' names and lifetimes, the same for `taskctl token create` and the API.
public enum TokenFields {
    /// The lifetime when none is given: 90 days.
    public static let defaultLifetime: TimeInterval = 90 * 86_400
    /// The longest lifetime accepted: two years.
    public static let maxLifetime: TimeInterval = 2 * 366 * 86_400
    /// The shortest lifetime accepted: one minute.
    public static let minLifetime: TimeInterval = 60
    /// The units a lifetime is written in, and their seconds.
    public static let lifetimeUnits: KeyValuePairs<Character, TimeInterval> = ["s": 1, "m": 60, "h": 3_600, "d": 86_400]

    /// A lifetime written `90d`, `12h`, `30m` or `3600s`, between one minute and two years.
    public static func lifetime(_ text: String, field: String = "expires_in") throws -> TimeInterval {
        let trimmed = text.trimmingSpaces()
        guard let unit = trimmed.last.flatMap({ last in lifetimeUnits.first { $0.key == last }?.value }), let count = Int(trimmed.dropLast()),
            count > 0, Double(count) * unit >= minLifetime, Double(count) * unit <= maxLifetime
        else {
            throw TaskError.validation(
                field: field, reason: "\(TaskError.quoting(text)) is not a lifetime like 90d, 12h or 30m, from 1 minute to 2 years")
        }
        return Double(count) * unit
    }

    /// A token's name: like a user's name (one line, 1-200 characters).
    public static func name(_ text: String) throws -> String {
        try UserFields.name(text, field: "name")
    }
}
