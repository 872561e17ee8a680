import Foundation

/// What every text field shares: one definition of length, trimming without Foundation's
/// bridging (the importer calls it for every cell), one composed form, and no NUL, which
/// PostgreSQL text cannot store.
public enum TextRules {
    /// A text's length as every limit counts it: Unicode scalars (code points), exactly what
    /// PostgreSQL's `char_length` counts, so a CHECK such as `tasks_title_length` agrees with
    /// TaskCore on every text. Not `Character`s: "नमस्ते" is 3 characters but 6 code points, a
    /// flag 1 character but 2 code points.
    ///
    /// Counted on the string's UTF-8 bytes in place: every scalar has exactly one byte that is
    /// not a continuation byte (`10xxxxxx`), and a Swift string's UTF-8 is always valid.
    /// (`unicodeScalars.count` walks scalar by scalar: 8% of taskimport's CPU on titles and notes.)
    public static func length(_ text: String) -> Int {
        text.utf8.withContiguousStorageIfAvailable { bytes in
            var leading = 0
            for byte in bytes where byte & 0xC0 != 0x80 { leading += 1 }
            return leading
        } ?? text.unicodeScalars.count
    }

    /// `text` without trailing white space (the same White_Space set as `trimmed`).
    public static func trailingWhitespaceRemoved(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard let last = scalars.last, last.properties.isWhitespace else { return text }
        guard let end = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        return String(scalars[...end])
    }

    /// `text` without leading and trailing white space (Unicode's White_Space property, the
    /// set Foundation's `.whitespacesAndNewlines` holds); the same string when there is none.
    public static func trimmed(_ text: String) -> String {
        // The usual case, decided on bytes: an ASCII character other than white space at each end.
        let plainEnds = text.utf8.withContiguousStorageIfAvailable { bytes in
            guard let first = bytes.first, let last = bytes.last else { return false }
            return isASCIIOtherThanWhitespace(first) && isASCIIOtherThanWhitespace(last)
        }
        return plainEnds == true ? text : trimmedScalars(text)
    }

    /// `trimmed` judged scalar by scalar.
    @inline(never)
    private static func trimmedScalars(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard let first = scalars.first, let last = scalars.last else { return text }
        if !first.properties.isWhitespace && !last.properties.isWhitespace { return text }
        guard let start = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let end = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[start...end])
    }

    /// True for a byte that is a whole ASCII character and not white space (tab through
    /// carriage return, and space, are ASCII's White_Space).
    private static func isASCIIOtherThanWhitespace(_ byte: UInt8) -> Bool {
        byte < 0x80 && byte != UInt8(ascii: " ") && !(0x09...0x0D).contains(byte)
    }

    /// `text` composed (Unicode NFC): `é` as the one code point U+00E9 however it was typed
    /// (`e` and U+0301 arrive from macOS file names and some exports). Stored text and every
    /// text a filter compares are in this form, since PostgreSQL compares code points where
    /// Swift compares characters: composed, both see the same string.
    ///
    /// Decided on bytes first: a text whose code points all lie below U+0300 (UTF-8 bytes below
    /// 0xCC: ASCII, Latin-1, Latin Extended) is composed already, since the first code point
    /// that can combine with the one before it, or that NFC replaces, is U+0300. Only other
    /// text goes through Foundation (~2 µs for a line of Cyrillic).
    public static func composed(_ text: String) -> String {
        let belowCombiningMarks = text.utf8.withContiguousStorageIfAvailable { bytes in
            !bytes.contains { $0 >= 0xCC }
        }
        return belowCombiningMarks == true ? text : text.precomposedStringWithCanonicalMapping
    }

    /// `text` as a filter compares it in both stores: composed, then lower-cased by Unicode's
    /// full mappings (`İ` is `i` and U+0307), so that case-insensitive means the same for
    /// `É` as for `E`, and the final sigma `ς` made `σ`: ICU lowers a word-final `Σ` to `ς`,
    /// Swift to `σ`, so without it `ΟΔΟΣ` matched `οδος` in one store and `οδοσ` in the other.
    /// PostgreSQL does the same through the `taskbase_fold` collation and `translate`
    /// (`hasSigma`).
    public static func folded(_ text: String) -> String {
        let lowered = composed(text).lowercased()
        // ς is CF 82 in UTF-8: most text has no 0xCF byte and is returned as it is.
        guard lowered.utf8.contains(0xCF) else { return lowered }
        return lowered.replacingOccurrences(of: "\u{3C2}", with: "\u{3C3}")
    }

    /// Whether folded text holds a sigma: only then can the final-sigma fold change what a
    /// filter matches, so PostgreSQL applies it (per row) only then.
    public static func hasSigma(_ folded: String) -> Bool {
        folded.unicodeScalars.contains("\u{3C3}")
    }

    /// Whether `text` holds `part`, code point for code point (as LIKE compares), not character
    /// for character (as `String.contains` does, where `e` is not inside `é` written as `e`
    /// and U+0301).
    public static func holds(_ text: String, _ part: String) -> Bool {
        part.isEmpty || text.utf8.firstRange(of: part.utf8) != nil
    }

    /// Refuses a NUL character as a validation error on `field`: stored text could not keep it.
    /// (On the string's bytes in place: `utf8.contains` through the iterator was ~6% of
    /// taskimport's CPU.)
    public static func rejectNUL(_ text: String, field: String) throws {
        if holdsNUL(text) {
            throw TaskError.validation(
                field: field, reason: "a NUL character (U+0000) in the \(TaskError.spoken(field)) cannot be stored")
        }
    }

    /// Whether `text` holds a NUL character, decided on its bytes in place.
    public static func holdsNUL(_ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { $0.contains(0) } ?? text.utf8.contains(0)
    }

    /// Whether `text` holds a line break (`Character.isNewline`), decided on bytes when they are
    /// all ASCII (the only ASCII line breaks are LF, VT, FF and CR).
    public static func hasLineBreak(_ text: String) -> Bool {
        let ascii = text.utf8.withContiguousStorageIfAvailable { bytes -> Bool? in
            var lineBreak = false
            for byte in bytes {
                if byte >= 0x80 { return nil }
                if (0x0A...0x0D).contains(byte) { lineBreak = true }
            }
            return lineBreak
        }
        if let ascii, let lineBreak = ascii { return lineBreak }
        return text.contains(where: \.isNewline)
    }
}
