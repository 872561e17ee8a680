import Foundation

/// A team's short uppercase key (`CORE`): the prefix of every task key in the team.
public struct TeamKey: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The allowed length of a key.
    public static let lengthRange = 2...10

    /// The key, uppercase ASCII letters and digits, starting with a letter.
    public let rawValue: String

    /// Validates and uppercases `text`; a bad key is a validation error on `field`. The key is
    /// checked as typed, before upper-casing: `ı` and `ß` upper-case to ASCII (`I`, `SS`), and
    /// `straße` must not quietly become the team STRASSE.
    public init(_ text: String, field: String = "team") throws {
        let typed = text.trimmingSpaces()
        // A well-formed key is ASCII: judged on its bytes, with no grapheme counting. Anything
        // else takes the checks below, which say what is wrong.
        let bytes = typed.utf8
        if Self.lengthRange.contains(bytes.count), let first = bytes.first, Self.isLetter(first),
            bytes.allSatisfy({ Self.isLetter($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        {
            rawValue = typed.uppercased()
            return
        }
        guard Self.lengthRange.contains(typed.count) else {
            throw TaskError.validation(
                field: field, reason: "a team key has \(Self.lengthRange.lowerBound) to \(Self.lengthRange.upperBound) characters, got \(typed.count)"
            )
        }
        func letter(_ scalar: Unicode.Scalar) -> Bool { ("A"..."Z").contains(scalar) || ("a"..."z").contains(scalar) }
        guard let first = typed.unicodeScalars.first, letter(first), typed.unicodeScalars.allSatisfy({ letter($0) || ("0"..."9").contains($0) })
        else {
            throw TaskError.validation(
                field: field, reason: "a team key is letters A-Z and digits, starting with a letter, got \(TaskError.quoting(text))")
        }
        rawValue = typed.uppercased()
    }

    /// Whether `byte` is an ASCII letter.
    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
    }

    /// Alphabetical.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The key itself, e.g. `CORE`.
    public var description: String { rawValue }
}
