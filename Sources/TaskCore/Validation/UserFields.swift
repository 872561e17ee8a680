import Foundation

/// The rules for user and team names, so every entry point accepts the same values.
public enum UserFields {
    /// The longest display or team name.
    public static let nameMaxLength = 200
    /// The longest email address, in characters (RFC 5321's path, less its brackets).
    public static let emailMaxLength = 254

    /// A trimmed, lowercased address with one `@`, something on both sides, no spaces, and
    /// no character that lower-cases into plain ASCII (`caseFoldsIntoASCII`).
    public static func email(_ text: String) throws -> String {
        let email = normalizedEmailKey(text)
        try TextRules.rejectNUL(email, field: "email")
        if let folding = email.first(where: caseFoldsIntoASCII) {
            let code = folding.unicodeScalars.map { "U+" + String($0.value, radix: 16, uppercase: true) }.joined(separator: " ")
            let reason =
                "\(TaskError.quoting(text)) has \(folding) (\(code)), which lower-cases to the plain \(folding.lowercased()) of another address"
            throw TaskError.validation(field: "email", reason: reason + "; write it in plain letters")
        }
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !parts[1].hasPrefix("."),
            !parts[1].hasSuffix("."), email.count <= emailMaxLength, !email.contains(where: \.isWhitespace)
        else {
            throw TaskError.validation(field: "email", reason: "\(TaskError.quoting(text)) is not an email address")
        }
        return email
    }

    /// The form emails are stored and compared in: trimmed, lower-cased and composed (NFC:
    /// `é` as one code point, however it was typed, since PostgreSQL compares bytes where
    /// Swift compares characters), except that a character which lower-cases into plain ASCII
    /// (`caseFoldsIntoASCII`) stays as it is, so `\u{212A}ate@example.com` (KELVIN SIGN) never
    /// names kate@example.com: an identity provider's claim or a typed address cannot reach
    /// another account through case mapping.
    public static func normalizedEmailKey(_ text: String) -> String {
        let trimmed = TextRules.trimmed(text)
        // Addresses mostly arrive lowercase already: ASCII without A-Z is its own lowercase.
        let isLowercaseASCII = trimmed.utf8.withContiguousStorageIfAvailable { bytes in
            bytes.allSatisfy { $0 < 0x80 && !(UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }
        }
        if isLowercaseASCII == true { return trimmed }
        if trimmed.contains(where: caseFoldsIntoASCII) {
            // Not composed either: NFC itself turns KELVIN SIGN into the K it is canonically.
            // Kept, the letter matches no stored address (`email` refuses to store one).
            return trimmed.map { caseFoldsIntoASCII($0) ? String($0) : $0.lowercased() }.joined()
        }
        return TextRules.composed(trimmed.lowercased())
    }

    /// Whether `character` is not ASCII but its lower case is: KELVIN SIGN (U+212A) lower-cases
    /// to `k`. Such a letter makes an address that is not another collide with it once
    /// lower-cased (the account-takeover class of GitHub's 2019 dotless-i bug). `É` (to `é`)
    /// and the dotted capital I (to `i` and a combining dot, which is not `i`) do not.
    public static func caseFoldsIntoASCII(_ character: Character) -> Bool {
        !character.isASCII && character.lowercased().allSatisfy(\.isASCII)
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
