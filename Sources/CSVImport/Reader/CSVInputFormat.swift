/// What the reader found out about its input before the first record: the encoding, whether
/// there was a byte-order mark, and the separator and where it came from, so a program can say
/// how it read the file.
public struct CSVInputFormat: Sendable, Equatable {
    /// Where the separator came from.
    public enum DelimiterOrigin: String, Sendable, Equatable {
        /// The options (`--delimiter`, or the default comma).
        case option
        /// The file's first line `sep=X`, which Excel writes and reads.
        case sepLine = "sep-line"
        /// Counted on the header line (`--delimiter auto`).
        case detected
    }

    /// The encoding the text was read in (`utf16LE` or `utf16BE` for UTF-16).
    public var encoding: TextEncoding
    /// Whether the input began with a byte-order mark (which then chose the encoding).
    public var byteOrderMark: Bool
    /// The field separator.
    public var delimiter: CSVDelimiter
    /// Where the separator came from.
    public var delimiterOrigin: DelimiterOrigin

    /// A format, as the reader settles it or a test expects it.
    public init(encoding: TextEncoding, byteOrderMark: Bool, delimiter: CSVDelimiter, delimiterOrigin: DelimiterOrigin) {
        self.encoding = encoding
        self.byteOrderMark = byteOrderMark
        self.delimiter = delimiter
        self.delimiterOrigin = delimiterOrigin
    }
}
