/// A problem in the CSV text, with the physical line, the field and the character where it is,
/// so a person can open the file and go straight there.
///
/// Lines are 1-based physical lines (a line break inside a quoted field starts a new line);
/// `field` is the 1-based field number, what every message calls the column; `character` is
/// 1-based and counts characters (Unicode scalars) from the start of that line.
public struct CSVError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong.
    public enum Kind: Sendable, Equatable {
        /// The input ended inside a quoted field; the quote opened at the given line and character.
        case unterminatedQuote(openedAtLine: Int, openedAtCharacter: Int)
        /// A `"` inside a field that does not start with a quote.
        case strayQuote
        /// Something other than a delimiter or line break right after a field's closing quote.
        case textAfterClosingQuote
        /// A record whose number of fields differs from the header's.
        case raggedRow(expected: Int, found: Int)
        /// Bytes that are not text in `encoding`, at `fileOffset` (0-based) in the file; `looksLike`
        /// is the encoding the file seems to be in, when there is a better guess.
        case undecodable(bytes: [UInt8], encoding: TextEncoding, fileOffset: Int, looksLike: TextEncoding?)
        /// The first line looks like another encoding than the one being read (NUL bytes between
        /// the letters: UTF-16 without a byte-order mark).
        case wrongEncoding(reading: TextEncoding, looksLike: TextEncoding)
        /// A first line `sep=X` naming a separator the reader does not support.
        case unsupportedSeparator(String)
        /// A field longer than the configured limit (in bytes).
        case fieldTooLarge(limit: Int)
        /// The source itself failed (an I/O error), with its message.
        case readFailed(String)
    }

    /// What is wrong.
    public var kind: Kind
    /// 1-based physical line of the problem.
    public var line: Int
    /// 1-based character position of the problem in that line.
    public var character: Int
    /// 1-based number of the field the problem is in, when there is one: the column.
    public var field: Int?
    /// Byte offset of the problem from the start of the text the reader parsed: the file's own
    /// offset for UTF-8 (a BOM counts), the UTF-8 text's for other encodings (except for
    /// `undecodable`, which has the file's); for a ragged row, the end of the record.
    public var byteOffset: Int
    /// For a problem confined to one record: that record as read, so it can go to a reject
    /// file. `nil` for problems that stop the reader.
    public var record: CSVRecord? = nil

    /// Whether the reader can go on with the next record after this error. Malformed quotes,
    /// ragged rows and undecodable bytes spoil one record; an unterminated quote, an oversized
    /// field, a wrong encoding or an I/O failure end the read.
    public var isRecoverable: Bool { record != nil }

    /// One line for a person: where (the line, the column as field number, the character in
    /// parentheses), what, and what to do about it.
    public var description: String {
        description(header: nil)
    }

    /// `description` with the column's header in parentheses after its number, as every
    /// message names a column (`line 7, column 4 (Due Date): ...`), when the header is known.
    public func description(header: String?) -> String {
        var place = "line \(line)"
        if let field {
            place += ", column \(field)"
            if let header, !header.isEmpty { place += " (\(header))" }
        }
        return "\(place): \(problem) (character \(character) of line \(line))"
    }

    /// What is wrong and what to do, without the place.
    public var problem: String {
        switch kind {
        case .unterminatedQuote(let openedAtLine, let openedAtCharacter):
            return "the quote opened at line \(openedAtLine), character \(openedAtCharacter) is never closed; "
                + "add the closing quote, and double any quote inside the field (\"\")"
        case .strayQuote:
            return "a quote inside a field that is not quoted; quote the whole field and double the quote "
                + "(\"say \"\"hi\"\"\"), or remove spaces before the opening quote"
        case .textAfterClosingQuote:
            return "text after the closing quote of a field; double quotes inside a quoted field (\"\") "
                + "and put the delimiter right after the closing quote"
        case .raggedRow(let expected, let found):
            return "expected \(expected) fields as in the header, found \(found); "
                + "check for a missing or extra delimiter, or quote fields that contain one"
        case .undecodable(let bytes, let encoding, let fileOffset, let looksLike):
            let hex = bytes.map { "0x" + Self.hex($0) }.joined(separator: " ")
            let what = bytes.count == 1 ? "byte \(hex) is" : "bytes \(hex) are"
            var text = "\(what) not valid \(encoding.displayName) (at byte offset \(fileOffset) of the file)"
            if let looksLike, looksLike != encoding {
                text += "; the file looks like \(looksLike.displayName): read it with \(OptionSpelling.option("encoding", looksLike.optionValue))"
                if encoding == .utf8 { text += ", or save it as UTF-8" }
            } else {
                text += "; save the file as UTF-8 and try again"
            }
            return text
        case .wrongEncoding(let reading, let looksLike):
            return "the file is not \(reading.displayName) text: NUL bytes between the letters of its first line say "
                + "\(looksLike.displayName) without a byte-order mark; read it with \(OptionSpelling.option("encoding", looksLike.optionValue))"
        case .unsupportedSeparator(let separator):
            return "the first line asks for the separator \"\(separator)\" (sep=\(separator)); "
                + "the separators read are , ; tab and |: change that line, or remove it and pass \(OptionSpelling.option("delimiter", "SEPARATOR"))"
        case .fieldTooLarge(let limit):
            return "a field is longer than \(limit) bytes; check for an unclosed quote, "
                + "or raise the limit with \(OptionSpelling.option("max-field-size", "BYTES"))"
        case .readFailed(let message):
            return "reading failed: \(message)"
        }
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return digits.count == 1 ? "0" + digits : digits
    }
}

extension CSVError {
    /// The name `header` gives the error's field, when it has a field the header names.
    public func header(in header: [String]) -> String? {
        field.flatMap { $0 >= 1 && $0 <= header.count ? header[$0 - 1] : nil }
    }
}
