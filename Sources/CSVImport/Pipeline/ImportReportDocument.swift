import TaskCore
import TaskbaseWire

extension ImportReportDocument {
    /// The document of `report`: `rejections` defaults to the report's first 100.
    public init(
        report: ImportReport, file: String?, team: TeamKey, policy: ImportConflictPolicy, rejectFile: String?, rejections: [RowRejection]? = nil
    ) {
        let summary = report.summary
        self.init(
            file: file, team: team.rawValue, dryRun: report.dryRun, onConflict: policy.rawValue, changed: report.changesSomething,
            read: report.rowsRead, inserted: summary.inserted, updated: summary.updated, unchanged: summary.unchanged, skipped: summary.skipped,
            rejected: report.rejected, emptyRowsSkipped: report.emptyRowsSkipped, encoding: report.format?.encoding.rawValue,
            byteOrderMark: report.format?.byteOrderMark, delimiter: report.format?.delimiter.rawValue,
            delimiterFrom: report.format?.delimiterOrigin.rawValue,
            normalised: Normalised(
                titlesTrimmed: report.normalisations.titlesTrimmed, notesTrimmedAtEnd: report.normalisations.notesTrimmedAtEnd,
                valuesTrimmed: report.normalisations.valuesTrimmed, lineBreaksMadeLF: report.normalisations.lineBreaksMadeLF),
            seconds: (report.seconds * 1000).rounded() / 1000, rowsPerSecond: Int(report.rowsPerSecond.rounded()),
            rejectFile: report.rejected > 0 ? rejectFile : nil, rejections: (rejections ?? report.rejections).map(Rejection.init))
    }
}

extension ImportReportDocument.Rejection {
    /// The document of `rejection`.
    public init(_ rejection: RowRejection) {
        self.init(line: rejection.line, column: rejection.column, header: rejection.header, reason: rejection.reason)
    }
}
