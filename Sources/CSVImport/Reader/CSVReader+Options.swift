extension CSVReader {
    /// How a `CSVReader` splits and checks its input.
    public struct Options: Sendable, Equatable {
        /// The field separator; with `detectsDelimiter`, the one used when the header line
        /// has none of the four. A first line `sep=X` overrides both.
        public var delimiter: CSVDelimiter
        /// Choose the separator from the header line: the one of `,` `;` tab `|` that occurs
        /// most often outside quotes (ties go in that order).
        public var detectsDelimiter: Bool
        /// The encoding of the input; a byte-order mark at its start overrides it.
        public var encoding: TextEncoding
        /// The longest field accepted, in bytes (1 MiB by default); a longer one is an error,
        /// which also stops a missing closing quote from swallowing the rest of a huge file.
        public var maxFieldBytes: Int
        /// How many bytes to ask the source for per read. Memory use is about one chunk plus
        /// the longest record, whatever the file's size.
        public var chunkSize: Int
        /// Skip physical lines that are completely empty instead of reading them as a record
        /// with one empty field; spreadsheets and editors often leave them at the end.
        public var skipsBlankLines: Bool
        /// Skip records whose every field is empty (`,,,` — spreadsheets end with such rows)
        /// instead of returning them; `CSVReader.emptyRowsSkipped` counts them with blank lines.
        public var skipsEmptyRecords: Bool
        /// Require every record to have as many fields as the first one (the header); a record
        /// that does not is a recoverable `raggedRow` error.
        public var requiresSameFieldCount: Bool

        /// The default chunk size: 64 KiB.
        public static let defaultChunkSize = 64 * 1024
        /// The default field size limit: 1 MiB.
        public static let defaultMaxFieldBytes = 1 << 20

        /// Options with RFC 4180 defaults: UTF-8, comma, 1 MiB fields, 64 KiB reads, blank
        /// lines skipped (records of empty fields kept), the same field count on every record.
        public init(
            delimiter: CSVDelimiter = .comma,
            detectsDelimiter: Bool = false,
            encoding: TextEncoding = .utf8,
            maxFieldBytes: Int = Options.defaultMaxFieldBytes,
            chunkSize: Int = Options.defaultChunkSize,
            skipsBlankLines: Bool = true,
            skipsEmptyRecords: Bool = false,
            requiresSameFieldCount: Bool = true
        ) {
            precondition(maxFieldBytes > 0, "maxFieldBytes must be positive")
            precondition(chunkSize > 0, "chunkSize must be positive")
            self.delimiter = delimiter
            self.detectsDelimiter = detectsDelimiter
            self.encoding = encoding
            self.maxFieldBytes = maxFieldBytes
            self.chunkSize = chunkSize
            self.skipsBlankLines = skipsBlankLines
            self.skipsEmptyRecords = skipsEmptyRecords
            self.requiresSameFieldCount = requiresSameFieldCount
        }
    }
}
