/// A problem in the CSV text, with the physical line and column where it is, so a person can
/// open the file and go straight there.
///
/// Lines are 1-based physical lines (a line break inside a quoted field starts a new line);
/// columns are 1-based and count characters (Unicode scalars) from the start of that line.
public struct CSVError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong.
    public enum Kind: Sendable, Equatable {
        /// The input ended inside a quoted field; the quote opened at the given line and column.
        case unterminatedQuote(openedAtLine: Int, openedAtColumn: Int)
        /// A `"` inside a field that does not start with a quote.
        case strayQuote
        /// Something other than a delimiter or line break right after a field's closing quote.
        case textAfterClosingQuote
        /// A record whose number of fields differs from the header's.
        case raggedRow(expected: Int, found: Int)
        /// Bytes that are not UTF-8; `byte` is the first offending byte.
        case invalidUTF8(byte: UInt8)
        /// A field longer than the configured limit (in bytes).
        case fieldTooLarge(limit: Int)
        /// The source itself failed (an I/O error), with its message.
        case readFailed(String)
    }

    /// What is wrong.
    public var kind: Kind
    /// 1-based physical line of the problem.
    public var line: Int
    /// 1-based character column of the problem in that line.
    public var column: Int
    /// 1-based number of the field the problem is in, when there is one.
    public var field: Int?
    /// Byte offset of the problem from the start of the input (a BOM counts); for a ragged
    /// row, the end of the record.
    public var byteOffset: Int
    /// For a problem confined to one record: that record as read, so it can go to a reject
    /// file. `nil` for problems that stop the reader.
    public var record: CSVRecord? = nil

    /// Whether the reader can go on with the next record after this error. Malformed quotes and
    /// ragged rows spoil one record; an unterminated quote, invalid UTF-8, an oversized field or
    /// an I/O failure end the read.
    public var isRecoverable: Bool { record != nil }

    /// One line for a person: where, what, and what to do about it.
    public var description: String {
        var place = "line \(line), column \(column)"
        if let field { place += " (field \(field))" }
        return "\(place): \(problem)"
    }

    /// What is wrong and what to do, without the place.
    var problem: String {
        switch kind {
        case .unterminatedQuote(let openedAtLine, let openedAtColumn):
            return "the quote opened at line \(openedAtLine), column \(openedAtColumn) is never closed; "
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
        case .invalidUTF8(let byte):
            let hex = String(byte, radix: 16, uppercase: true)
            return "byte 0x\(hex.count == 1 ? "0" + hex : hex) is not valid UTF-8; save the file as UTF-8 and try again"
        case .fieldTooLarge(let limit):
            return "a field is longer than \(limit) bytes; check for an unclosed quote, or raise the field size limit"
        case .readFailed(let message):
            return "reading failed: \(message)"
        }
    }
}
