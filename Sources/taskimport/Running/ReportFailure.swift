import CSVImport
import CommandLineToolkit

/// The import ran to its end (committed, or a dry run that wrote nothing), and then writing
/// the reject file or the summary failed: the message must say the import is done, never
/// "nothing was imported", so nobody imports the file again thinking it was lost (which
/// would be harmless, but the reason to check the team would be missed).
struct ReportFailure: Error, CustomStringConvertible {
    /// What the import did.
    let report: ImportReport
    /// What failed after it.
    let underlying: any Error

    var description: String {
        let summary = report.summary
        let done =
            report.dryRun
            ? "the dry run itself finished and wrote nothing"
            : "the import itself is committed (\(summary.inserted) inserted, \(summary.updated) updated); running it again changes nothing"
        return "\(underlying) after the import; \(done)"
    }

    /// As the runner reports it: exit 1 with the message above.
    var failure: CommandFailure { CommandFailure(description, exitCode: .failure) }
}
