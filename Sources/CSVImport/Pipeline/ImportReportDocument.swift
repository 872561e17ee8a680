import TaskCore

/// An import's summary as one JSON document: what `taskimport --json` prints and what
/// `POST /v1/teams/{team}/imports` answers, built in one place so the two never drift.
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

        /// The document of `rejection`.
        public init(_ rejection: RowRejection) {
            line = rejection.line
            column = rejection.column
            header = rejection.header
            reason = rejection.reason
        }
    }

    enum CodingKeys: String, CodingKey {
        case file, team, dryRun = "dry_run", onConflict = "on_conflict", changed, read, inserted, updated, unchanged, skipped
        case rejected, emptyRowsSkipped = "empty_rows_skipped", encoding, byteOrderMark = "byte_order_mark", delimiter
        case delimiterFrom = "delimiter_from", normalised
        case seconds, rowsPerSecond = "rows_per_second", rejectFile = "reject_file", rejections
    }

    /// The document of `report`: `rejections` defaults to the report's first 100.
    public init(
        report: ImportReport, file: String?, team: TeamKey, policy: ImportConflictPolicy, rejectFile: String?, rejections: [RowRejection]? = nil
    ) {
        let summary = report.summary
        self.file = file
        self.team = team.rawValue
        dryRun = report.dryRun
        onConflict = policy.rawValue
        changed = report.changesSomething
        read = report.rowsRead
        inserted = summary.inserted
        updated = summary.updated
        unchanged = summary.unchanged
        skipped = summary.skipped
        rejected = report.rejected
        emptyRowsSkipped = report.emptyRowsSkipped
        encoding = report.format?.encoding.rawValue
        byteOrderMark = report.format?.byteOrderMark
        delimiter = report.format?.delimiter.rawValue
        delimiterFrom = report.format?.delimiterOrigin.rawValue
        normalised = Normalised(
            titlesTrimmed: report.normalisations.titlesTrimmed, notesTrimmedAtEnd: report.normalisations.notesTrimmedAtEnd,
            valuesTrimmed: report.normalisations.valuesTrimmed, lineBreaksMadeLF: report.normalisations.lineBreaksMadeLF)
        seconds = (report.seconds * 1000).rounded() / 1000
        rowsPerSecond = Int(report.rowsPerSecond.rounded())
        self.rejectFile = report.rejected > 0 ? rejectFile : nil
        self.rejections = (rejections ?? report.rejections).map(Rejection.init)
    }
}
