import Foundation

/// Times as every taskctl output writes them: ISO 8601 in UTC to the second, the same text
/// the JSON documents carry.
enum Timestamp {
    /// `2026-11-30T09:12:01Z`.
    static func iso(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle())
    }
}
