import CommandLineToolkit
import PGStore
import TaskCore

/// The one place errors become exit codes (DESIGN.md §6) and one line on stderr:
///
/// | error                                           | exit |
/// |-------------------------------------------------|------|
/// | `TaskError.notFound`, anything unexpected       | 1    |
/// | usage (`UsageError`)                            | 2    |
/// | configuration, connection refused or lost       | 3    |
/// | `TaskError.permissionDenied`, SQLSTATE 42501    | 4    |
/// | `TaskError.conflict`, `.alreadyExists`, lock/serialization failures | 5 |
/// | `TaskError.validation`                          | 6    |
enum ExitCodeMapping {
    /// `error` as the runner should report it: usage errors, cancellation and failures that
    /// already carry a code pass through; TaskCore and PGStore errors become `CommandFailure`s.
    static func failure(for error: any Error) -> any Error {
        switch error {
        case is UsageError, is CancellationError, is CommandFailure:
            return error
        case let error as TaskError:
            return CommandFailure(error.description, exitCode: exitCode(for: error))
        case let error as PGError:
            return CommandFailure(message(for: error), exitCode: exitCode(for: error))
        case let error as any Error & ExitCodeProviding:
            return CommandFailure(ErrorPrinter.message(for: error), exitCode: error.exitCode)
        default:
            return CommandFailure(ErrorPrinter.message(for: error))
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

    /// The exit code of a database failure that the store did not translate.
    static func exitCode(for error: PGError) -> ExitCode {
        if error.isConnectionLost || error.kind == .configuration { return .cannotConnect }
        switch error.code {
        case .insufficientPrivilege: return .permissionDenied
        case .serializationFailure, .deadlockDetected, .lockNotAvailable: return .conflict
        default: return .failure
        }
    }

    /// `text` with every run of whitespace (newlines, tabs) as one space, for one-line errors.
    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    private static func message(for error: PGError) -> String {
        if error.kind == .configuration {
            return "bad database configuration: \(oneLine(error.description)); check DATABASE_URL, the PG* variables and .env"
        }
        return switch exitCode(for: error) {
        case .cannotConnect: "lost the database connection: \(oneLine(error.description)); check that the server is up"
        case .conflict: "the database was busy with a conflicting change: \(oneLine(error.description)); try again"
        default: "the database refused: \(oneLine(error.description))"
        }
    }
}
