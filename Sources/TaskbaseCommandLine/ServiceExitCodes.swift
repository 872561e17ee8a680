import CommandLineToolkit
import PGStore
import TaskCore

/// The one place where the service layer's and the database's errors become exit codes
/// (docs/design.md, "The command-line contract") and one line on stderr, for every program that uses `TaskService`:
///
/// | error                                                               | exit |
/// |---------------------------------------------------------------------|------|
/// | `TaskError.notFound`, anything unexpected                           | 1    |
/// | usage (`UsageError`)                                                | 2    |
/// | configuration, connection refused or lost                           | 3    |
/// | `TaskError.permissionDenied`, SQLSTATE 42501                        | 4    |
/// | `TaskError.conflict`, `.alreadyExists`, lock/serialization failures | 5    |
/// | `TaskError.validation`                                              | 6    |
public enum ServiceExitCodes {
    /// `error` as the runner should report it. Usage errors, cancellation and failures that
    /// already carry a code pass through; TaskCore and PGStore errors become `CommandFailure`s.
    /// `consequence` (e.g. "nothing was imported") is appended to every failure's line. With
    /// `actor` (the command's `ActingUser`), that user not existing is said to be about `--as`.
    public static func failure(for error: any Error, consequence: String? = nil, actor: UserRef? = nil) -> any Error {
        let suffix = consequence.map { "; \($0)" } ?? ""
        switch error {
        case is UsageError, is CancellationError, is CommandFailure:
            return error
        case let error as TaskError:
            if let actor, error == .unknownUser(actor) {
                return CommandFailure(ActingUser.notFoundMessage(actor, suffix: suffix), exitCode: exitCode(for: error))
            }
            return CommandFailure(error.description + suffix, exitCode: exitCode(for: error))
        case let error as PGError:
            return CommandFailure(message(for: error, suffix: suffix), exitCode: exitCode(for: error))
        case let error as any Error & ExitCodeProviding:
            return CommandFailure(oneLine(ErrorPrinter.message(for: error)) + suffix, exitCode: error.exitCode)
        default:
            return CommandFailure(oneLine(ErrorPrinter.message(for: error)) + suffix)
        }
    }

    /// The exit code of a refusal by the service layer.
    public static func exitCode(for error: TaskError) -> ExitCode {
        switch error {
        case .notFound: .failure
        case .permissionDenied: .permissionDenied
        case .conflict, .alreadyExists: .conflict
        case .validation: .inputRejected
        }
    }

    /// The exit code of a database failure that the store did not translate.
    public static func exitCode(for error: PGError) -> ExitCode {
        if error.isConnectionLost || error.kind == .configuration { return .cannotConnect }
        switch error.code {
        case .insufficientPrivilege: return .permissionDenied
        case .serializationFailure, .deadlockDetected, .lockNotAvailable: return .conflict
        default: return .failure
        }
    }

    /// `text` with every run of whitespace (newlines, tabs) as one space, for one-line errors.
    public static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    private static func message(for error: PGError, suffix: String) -> String {
        let text = oneLine(error.description)
        if error.kind == .configuration {
            return "bad database configuration: \(text)\(suffix); check DATABASE_URL, the PG* variables and .env"
        }
        if error.code == .queryCanceled, error.message.contains("statement timeout") {
            let limit = ServiceConnection.opened.map { " (\($0.limits.statementTimeout.displayText))" } ?? ""
            return "the statement ran longer than statement_timeout\(limit) and was cancelled\(suffix.isEmpty ? "; nothing was changed" : suffix); "
                + "allow longer with --statement-timeout or TASKBASE_STATEMENT_TIMEOUT"
        }
        if Self.schemaMissingStates.contains(error.sqlState ?? "") {
            let primary = "\(error.severity ?? "ERROR") \(error.sqlState ?? ""): \(oneLine(error.message))"
            return "the database refused: \(primary)\(suffix); its schema looks missing or older than this program: \(SchemaStatus.migrationAdvice)"
        }
        return switch exitCode(for: error) {
        case .cannotConnect: "lost the database connection: \(text)\(suffix); check that the server is up"
        case .conflict: "the database was busy with a conflicting change: \(text)\(suffix); try again"
        default: "the database refused: \(text)\(suffix)"
        }
    }

    /// Undefined table, column or function: what a program meets on a database whose schema
    /// was never migrated, or is older than the program.
    static let schemaMissingStates: Set<String> = ["42P01", "42703", "42883"]
}
