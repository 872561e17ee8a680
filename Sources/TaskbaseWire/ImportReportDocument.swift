/// An import's summary as one JSON document: what `taskimport --json` prints, what
/// `POST /v1/teams/{team}/imports` answers and the Swift client returns. CSVImport builds it
/// from an import's report in one place, so the three never drift.
public struct ImportReportDocument: Codable, Sendable, Equatable {
    /// The input's name (`-` for standard input; absent over HTTP).
    public var file: String?
    /// The team's key.
    public var team: String
    /// Whether nothing was written because it was a dry run.
    public var dryRun: Bool
    /// `update`, `skip` or `fail`.
    public var onConflict: String
    /// Whether the team changed (or, in a dry run, would change).
    public var changed: Bool
    /// Data rows read, good or bad.
    public var read: Int
    /// Tasks created.
    public var inserted: Int
    /// Tasks changed.
    public var updated: Int
    /// Rows that matched their task already.
    public var unchanged: Int
    /// Rows left alone under `skip`.
    public var skipped: Int
    /// Bad rows left out.
    public var rejected: Int
    /// Empty rows skipped.
    public var emptyRowsSkipped: Int
    /// How the input was read.
    public var encoding: String?
    /// Whether it began with a byte-order mark.
    public var byteOrderMark: Bool?
    /// The separator.
    public var delimiter: String?
    /// Where the separator came from: `option`, `sep-line` or `detected`.
    public var delimiterFrom: String?
    /// What the normalisation rules changed.
    public var normalised: Normalised
    /// Wall-clock seconds.
    public var seconds: Double
    /// Rows read per second.
    public var rowsPerSecond: Int
    /// The reject file, when rows were rejected and there is one.
    public var rejectFile: String?
    /// The refused rows with line, column, header and reason.
    public var rejections: [Rejection]

    /// How many stored values each normalisation rule changed.
    public struct Normalised: Codable, Sendable, Equatable {
        /// Titles trimmed of surrounding white space.
        public var titlesTrimmed: Int
        /// Notes that lost trailing white space.
        public var notesTrimmedAtEnd: Int
        /// Categories and external ids trimmed.
        public var valuesTrimmed: Int
        /// Cells whose CR or CRLF line breaks were made LF.
        public var lineBreaksMadeLF: Int

        /// The counts of each rule.
        public init(titlesTrimmed: Int, notesTrimmedAtEnd: Int, valuesTrimmed: Int, lineBreaksMadeLF: Int) {
            self.titlesTrimmed = titlesTrimmed
            self.notesTrimmedAtEnd = notesTrimmedAtEnd
            self.valuesTrimmed = valuesTrimmed
            self.lineBreaksMadeLF = lineBreaksMadeLF
        }

        enum CodingKeys: String, CodingKey {
            case titlesTrimmed = "titles_trimmed", notesTrimmedAtEnd = "notes_trailing_white_space_removed"
            case valuesTrimmed = "categories_and_external_ids_trimmed", lineBreaksMadeLF = "line_breaks_made_lf"
        }
    }

    /// One refused row.
    public struct Rejection: Codable, Sendable, Equatable {
        /// The line the row starts on.
        public var line: Int
        /// The column (field number) at fault, when one is.
        public var column: Int?
        /// That column's header.
        public var header: String?
        /// What is wrong.
        public var reason: String

        /// A refused row's document.
        public init(line: Int, column: Int?, header: String?, reason: String) {
            self.line = line
            self.column = column
            self.header = header
            self.reason = reason
        }
    }

    enum CodingKeys: String, CodingKey {
        case file, team, dryRun = "dry_run", onConflict = "on_conflict", changed, read, inserted, updated, unchanged, skipped
        case rejected, emptyRowsSkipped = "empty_rows_skipped", encoding, byteOrderMark = "byte_order_mark", delimiter
        case delimiterFrom = "delimiter_from", normalised
        case seconds, rowsPerSecond = "rows_per_second", rejectFile = "reject_file", rejections
    }

    /// A document with these values.
    public init(
        file: String?, team: String, dryRun: Bool, onConflict: String, changed: Bool, read: Int, inserted: Int, updated: Int, unchanged: Int,
        skipped: Int, rejected: Int, emptyRowsSkipped: Int, encoding: String?, byteOrderMark: Bool?, delimiter: String?, delimiterFrom: String?,
        normalised: Normalised, seconds: Double, rowsPerSecond: Int, rejectFile: String?, rejections: [Rejection]
    ) {
        self.file = file
        self.team = team
        self.dryRun = dryRun
        self.onConflict = onConflict
        self.changed = changed
        self.read = read
        self.inserted = inserted
        self.updated = updated
        self.unchanged = unchanged
        self.skipped = skipped
        self.rejected = rejected
        self.emptyRowsSkipped = emptyRowsSkipped
        self.encoding = encoding
        self.byteOrderMark = byteOrderMark
        self.delimiter = delimiter
        self.delimiterFrom = delimiterFrom
        self.normalised = normalised
        self.seconds = seconds
        self.rowsPerSecond = rowsPerSecond
        self.rejectFile = rejectFile
        self.rejections = rejections
    }
}
