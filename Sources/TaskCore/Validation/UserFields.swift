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
        if let control = email.unicodeScalars.first(where: isHiddenControl) {
            let reason = "\(TaskError.quoting(text)) holds the \(describing(control)), which no email address can hold"
            throw TaskError.validation(field: "email", reason: reason + "; type the address again without it")
        }
        if let folding = email.first(where: caseFoldsIntoASCII) {
            let code = folding.unicodeScalars.map(codePoint).joined(separator: " ")
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

    /// A trimmed name of 1-200 characters, for users (`field` "name"), teams and tokens: one
    /// line, and no other control character or bidi control (`isHiddenControl`).
    public static func name(_ text: String, field: String = "name") throws -> String {
        let name = TextRules.trimmed(text)
        try TextRules.rejectNUL(name, field: field)
        guard !name.isEmpty, TextRules.length(name) <= nameMaxLength, !name.contains(where: \.isNewline) else {
            throw TaskError.validation(field: field, reason: "a \(field) is one line of 1 to \(nameMaxLength) characters")
        }
        if let control = name.unicodeScalars.first(where: isHiddenControl) {
            throw TaskError.validation(
                field: field, reason: "a \(field) cannot hold the \(describing(control)); type it again without it")
        }
        return name
    }

    /// Whether `scalar` is refused in an email or a name: a control character (general
    /// category Cc: C0, DEL and C1, ESC among them) or a bidirectional override or isolate
    /// (U+202A-U+202E, U+2066-U+2069), which make a name display as another ("Trojan Source",
    /// CVE-2021-42574). Taskbase's own output escapes them, but API clients, web pages and other
    /// tools showing a name may not; an address can never hold one (RFC 5321, RFC 6531).
    public static func isHiddenControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control || (0x202A...0x202E).contains(scalar.value)
            || (0x2066...0x2069).contains(scalar.value)
    }

    /// `scalar` as a reason names it: "control character U+001B" or "bidi control U+202E".
    private static func describing(_ scalar: Unicode.Scalar) -> String {
        (scalar.properties.generalCategory == .control ? "control character " : "bidi control ") + codePoint(scalar)
    }

    /// `U+` and at least four hex digits: U+001B, U+212A, U+1F600.
    private static func codePoint(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
