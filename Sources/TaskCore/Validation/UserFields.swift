import Foundation

/// The rules for user and team names, so every entry point accepts the same values.
public enum UserFields {
    /// The longest display or team name.
    public static let nameMaxLength = 200

    /// A trimmed, lowercased address with one `@`, something on both sides, no spaces.
    public static func email(_ text: String) throws -> String {
        let email = normalizedEmailKey(text)
        try TextRules.rejectNUL(email, field: "email")
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !parts[1].hasPrefix("."),
            !parts[1].hasSuffix("."), email.count <= 254, !email.contains(where: \.isWhitespace)
        else {
            throw TaskError.validation(field: "email", reason: "\"\(text)\" is not an email address")
        }
        return email
    }

    /// The form emails are stored and compared in.
    public static func normalizedEmailKey(_ text: String) -> String {
        let trimmed = TextRules.trimmed(text)
        // Addresses mostly arrive lowercase already: ASCII without A-Z is its own lowercase.
        let isLowercaseASCII = trimmed.utf8.withContiguousStorageIfAvailable { bytes in
            bytes.allSatisfy { $0 < 0x80 && !(UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }
        }
        return isLowercaseASCII == true ? trimmed : trimmed.lowercased()
    }

    /// A trimmed name of 1-200 characters, for users (`field` "name") and teams.
    public static func name(_ text: String, field: String = "name") throws -> String {
        let name = TextRules.trimmed(text)
        try TextRules.rejectNUL(name, field: field)
        guard !name.isEmpty, TextRules.length(name) <= nameMaxLength, !name.contains(where: \.isNewline) else {
            throw TaskError.validation(field: field, reason: "a \(field) is one line of 1 to \(nameMaxLength) characters")
        }
        return name
    }
}
