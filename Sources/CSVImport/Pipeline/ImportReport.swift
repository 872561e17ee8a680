import TaskCore

/// What an import did, row by row: what was read and refused here, and what the store did
/// with the rest.
public struct ImportReport: Sendable {
    /// Data rows read (the header excluded), good or bad.
    public var rowsRead: Int
    /// Rows refused and left out (at most `--max-errors`).
    public var rejected: Int
    /// Blank lines and rows whose every cell is empty, skipped (not counted in `rowsRead`).
    public var emptyRowsSkipped: Int
    /// How the file was read: encoding, byte-order mark, separator and where it came from.
    public var format: CSVInputFormat?
    /// What the normalisation rules changed in the accepted rows.
    public var normalisations: ImportNormalisations
    /// What the store did (or, in a dry run, would do) with the accepted rows.
    public var summary: ImportSummary
    /// Whether nothing was written because it was a dry run.
    public var dryRun: Bool
    /// Wall-clock seconds from the first row read to the end of the merge.
    public var seconds: Double
    /// The first refusals (up to 100), in file order.
    public var rejections: [RowRejection]

    /// Whether the database changed (or, in a dry run, would change).
    public var changesSomething: Bool {
        summary.inserted + summary.updated > 0
    }

    /// Rows read per second of wall-clock time.
    public var rowsPerSecond: Double {
        seconds > 0 ? Double(rowsRead) / seconds : 0
    }
}
