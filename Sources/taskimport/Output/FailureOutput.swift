import CSVImport
import CommandLineToolkit
import TaskbaseWire

/// A refused or failed run as `--json` prints it: still one JSON document on standard output,
/// with the error, where in the file it is, and what was imported (nothing; or, when only
/// writing the reject file failed after the import committed, what it did), so a script never
/// has to parse standard error.
struct FailureOutput {
    let error: any Error
    /// The command line the run was given: the file, the team and the acting user.
    let values: ParsedValues

    /// The document: every key present, a value not known `null` (as every `--json` document
    /// writes it), so a script reads `error.line` without checking that it exists.
    struct Document: Encodable {
        var file: JSONNullable<String>
        var team: JSONNullable<String>
        var changed = false
        var imported = false
        var error: ErrorDetail
        var read: Int
        var inserted = 0
        var updated = 0
        var unchanged = 0
        var skipped = 0
        var rejected: Int

        /// What stopped the run and where.
        struct ErrorDetail: Encodable {
            var message: String
            var exitCode: Int32
            var line: JSONNullable<Int>
            var column: JSONNullable<Int>
            var header: JSONNullable<String>
            var character: JSONNullable<Int>

            enum CodingKeys: String, CodingKey {
                case message, exitCode = "exit_code", line, column, header, character
            }
        }
    }

    var document: Document {
        let message: String
        let exitCode: ExitCode
        switch error {
        case let failure as ReportFailure:
            (message, exitCode) = (failure.description, .failure)
        case _ where Task.isCancelled:
            (message, exitCode) = ("interrupted: nothing was imported", CommandRunner.stoppedExitCode)
        case let usage as UsageError:
            (message, exitCode) = (usage.message, .usage)
        case let failure as CommandFailure:
            (message, exitCode) = (failure.message, failure.exitCode)
        default:
            let mapped = ImportExitCodes.failure(for: error, values: values)
            message = ErrorPrinter.message(for: mapped)
            exitCode = (mapped as? any ExitCodeProviding)?.exitCode ?? .failure
        }
        let failure = error as? CSVImportFailure
        let place = failure?.place
        let counts = failure?.rowsSoFar ?? (read: 0, rejected: 0)
        var document = Document(
            file: JSONNullable(values.string("file")), team: JSONNullable(values.string("team")),
            error: .init(
                message: message, exitCode: exitCode.rawValue, line: JSONNullable(place?.line), column: JSONNullable(place?.column),
                header: JSONNullable(place?.header), character: JSONNullable(place?.character)),
            read: counts.read, rejected: counts.rejected)
        if let done = (error as? ReportFailure)?.report {
            // The import ran to its end: what it did, as the summary would have said.
            document.imported = !done.dryRun
            document.changed = done.changesSomething
            (document.read, document.rejected) = (done.rowsRead, done.rejected)
            let summary = done.summary
            (document.inserted, document.updated, document.unchanged, document.skipped) =
                (summary.inserted, summary.updated, summary.unchanged, summary.skipped)
        }
        return document
    }
}
