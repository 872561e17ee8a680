import CommandLineToolkit
import Migrations
import PGStore

/// taskmigrate's exit codes: which of the shared codes each Migrations and PGStore error
/// leaves with. `FailureReport` pairs them with the lines the user reads.
enum MigrateExitCodes {
    static func exitCode(for error: MigrationError) -> ExitCode {
        switch error {
        case .statementFailed(let failure):
            return failure.error.code == .insufficientPrivilege ? .permissionDenied : .failure
        case .lockTimeout, .migrationLockBusy, .historyNotEmpty, .indexBuildStillRunning:
            return .conflict
        case .lintRefused, .notReversible, .aheadOfFolder:
            return .inputRejected
        case .unknownVersion:
            return .usage
        }
    }

    static func exitCode(for error: PGError) -> ExitCode {
        if error.kind == .connection || error.kind == .configuration { return .cannotConnect }
        switch error.code {
        case .insufficientPrivilege: return .permissionDenied
        case .invalidPassword, .invalidAuthorization: return .cannotConnect
        default: return .failure
        }
    }
}
