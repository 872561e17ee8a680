import CSVImport
import CommandLineToolkit
import PGStore
import TaskCore

/// The one place taskimport's errors become exit codes (DESIGN.md §6) and one line on stderr:
///
/// | error                                                        | exit |
/// |--------------------------------------------------------------|------|
/// | `TaskError.notFound`, a failing read, anything unexpected   | 1    |
/// | usage (`UsageError`), a file that cannot be opened           | 2    |
/// | configuration, connection refused or lost                    | 3    |
/// | `TaskError.permissionDenied`, SQLSTATE 42501                 | 4    |
/// | `TaskError.alreadyExists` (`--on-conflict fail`), `.conflict`, lock or serialization failures | 5 |
/// | `CSVImportFailure` (bad rows, malformed CSV, header), `TaskError.validation` | 6 |
enum ExitCodeMapping {
    /// `error` as the runner should report it.
    static func failure(for error: any Error) -> any Error {
        switch error {
        case is UsageError, is CancellationError, is CommandFailure:
            return error
        case let error as CSVImportFailure:
            return CommandFailure(error.description, exitCode: error.isInputRejected ? .inputRejected : .failure)
        case let error as TaskError:
            return CommandFailure("\(error.description); nothing was imported", exitCode: exitCode(for: error))
        case let error as PGError:
            return CommandFailure(message(for: error), exitCode: exitCode(for: error))
        default:
            return CommandFailure("\(oneLine(ErrorPrinter.message(for: error))); nothing was imported")
        }
    }

    /// The exit code of a refusal by the service layer.
    static func exitCode(for error: TaskError) -> ExitCode {
        switch error {
        case .notFound: .failure
        case .permissionDenied: .permissionDenied
        case .conflict, .alreadyExists: .conflict
        case .validation: .inputRejected
        }
    }

    /// The exit code of a database failure the store did not translate.
    static func exitCode(for error: PGError) -> ExitCode {
        if error.isConnectionLost || error.kind == .configuration { return .cannotConnect }
        switch error.code {
        case .insufficientPrivilege: return .permissionDenied
        case .serializationFailure, .deadlockDetected, .lockNotAvailable: return .conflict
        default: return .failure
        }
    }

    /// `text` with every run of whitespace as one space.
    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    private static func message(for error: PGError) -> String {
        switch exitCode(for: error) {
        case .cannotConnect: "lost the database connection: \(oneLine(error.description)); nothing was imported; check that the server is up"
        case .conflict: "the database was busy with a conflicting change: \(oneLine(error.description)); nothing was imported; try again"
        default: "the database refused the import: \(oneLine(error.description)); nothing was imported"
        }
    }
}
