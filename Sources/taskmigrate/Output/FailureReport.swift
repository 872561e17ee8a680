import CommandLineToolkit
import Migrations
import PGStore

/// Turns what the Migrations module and PGStore throw into what the user sees: detail lines
/// printed first (one per drifted file or lint finding), then one summary line and the exit
/// code of docs/design.md, "The command-line contract".
struct FailureReport {
    var details: [String] = []
    var summary: String
    var exitCode: ExitCode

    /// What to do about a permission refused (exit 4): the login it takes, as docs/operations.md
    /// ("The owner role") says.
    static let permissionAdvice =
        "; log in as a member of taskbase_owner (up to 0005, as a superuser or a CREATEROLE role that owns the database), "
        + "see docs/operations.md, \"The owner role\""

    init(_ error: any Error) {
        switch error {
        case let error as MigrationFileError:
            summary = error.description
            exitCode = .inputRejected
        case let error as MigrationDriftError:
            details = error.description.split(separator: "\n").map(String.init)
            summary = "the migrations folder does not match the database's history (see above); nothing was run"
            exitCode = .inputRejected
        case MigrationError.lintRefused(let findings):
            details = findings.map(\.description)
            summary = "refusing to apply: fix the hazards above or add -- lint:allow RULE to the file; nothing was run"
            exitCode = .inputRejected
        case let error as MigrationError:
            summary = error.description
            exitCode = MigrateExitCodes.exitCode(for: error)
            if exitCode == .permissionDenied { summary += Self.permissionAdvice }
        case let error as PGError:
            summary =
                error.kind == .connection || error.kind == .configuration
                ? "cannot connect to the database: \(error.description); check DATABASE_URL (or the PG* variables, .env)"
                : error.description
            exitCode = MigrateExitCodes.exitCode(for: error)
            if exitCode == .permissionDenied { summary += Self.permissionAdvice }
        default:
            summary = ErrorPrinter.message(for: error)
            exitCode = .failure
        }
    }
}
