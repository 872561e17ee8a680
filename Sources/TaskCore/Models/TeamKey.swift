import Foundation

/// A team's short uppercase key (`CORE`): the prefix of every task key in the team.
public struct TeamKey: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The allowed length of a key.
    public static let lengthRange = 2...10

    /// The key, uppercase ASCII letters and digits, starting with a letter.
    public let rawValue: String

    /// Validates and uppercases `text`; a bad key is a validation error on `field`.
    public init(_ text: String, field: String = "team") throws {
        let key = text.trimmingSpaces().uppercased()
        guard Self.lengthRange.contains(key.count) else {
            throw TaskError.validation(
                field: field, reason: "a team key has \(Self.lengthRange.lowerBound) to \(Self.lengthRange.upperBound) characters, got \(key.count)")
        }
        guard let first = key.unicodeScalars.first, ("A"..."Z").contains(first),
            key.unicodeScalars.allSatisfy({ ("A"..."Z").contains($0) || ("0"..."9").contains($0) })
        else {
            throw TaskError.validation(field: field, reason: "a team key is letters A-Z and digits, starting with a letter, got \"\(text)\"")
        }
        rawValue = key
    }

    /// Alphabetical.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The key itself, e.g. `CORE`.
    public var description: String { rawValue }
}
