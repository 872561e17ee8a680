import CSVImport
import CommandLineToolkit
import TaskbaseCommandLine

/// taskimport's errors as exit codes: the file's own problems (bad rows past `--max-errors`,
/// malformed CSV, a missing title column) are 6, or 1 when the file cannot be read; the rest
/// is `ServiceExitCodes`, every line saying that nothing was imported.
enum ImportExitCodes {
    /// `error` as the runner should report it; `values` name the acting user.
    static func failure(for error: any Error, values: ParsedValues) -> any Error {
        if let error = error as? ReportFailure { return error.failure }
        if let error = error as? CSVImportFailure {
            return CommandFailure(error.description, exitCode: error.isInputRejected ? .inputRejected : .failure)
        }
        return ServiceExitCodes.failure(for: error, consequence: "nothing was imported", actor: ActingUser.named(in: values))
    }
}
