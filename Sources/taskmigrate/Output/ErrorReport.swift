import Migrations
import PGStore

/// An error turned into what the user sees: the exit code and the lines for stderr.
struct ErrorReport {
    var exitCode: ExitCode
    var message: String

    init(_ error: any Error, command: String) {
        switch error {
        case let error as UsageError:
            self.init(.usage, "\(error.message); see taskmigrate \(command) --help")
        case let error as MigrationFileError:
            self.init(.inputRejected, error.description)
        case let error as MigrationDriftError:
            self.init(.inputRejected, "the migrations folder does not match the database's history:\n" + error.description)
        case let error as MigrationError:
            self.init(Self.exitCode(for: error), error.description)
        case let error as PGError:
            self.init(Self.exitCode(for: error), Self.describe(error))
        default:
            self.init(.failed, String(describing: error))
        }
    }

    private init(_ exitCode: ExitCode, _ message: String) {
        self.exitCode = exitCode
        self.message = message
    }

    private static func exitCode(for error: MigrationError) -> ExitCode {
        switch error {
        case .statementFailed(let failure):
            return failure.error.code == .insufficientPrivilege ? .permissionDenied : .failed
        case .lockTimeout, .migrationLockBusy, .historyNotEmpty:
            return .conflict
        case .lintRefused, .notReversible:
            return .inputRejected
        case .unknownVersion:
            return .usage
        }
    }

    private static func exitCode(for error: PGError) -> ExitCode {
        switch error.kind {
        case .connection, .configuration:
            return .cannotConnect
        default:
            switch error.code {
            case .insufficientPrivilege: return .permissionDenied
            case .invalidPassword, .invalidAuthorization: return .cannotConnect
            default: return .failed
            }
        }
    }

    private static func describe(_ error: PGError) -> String {
        switch error.kind {
        case .connection, .configuration:
            return "cannot connect to the database: \(error.description); check DATABASE_URL (or PG* variables, .env)"
        default:
            return error.description
        }
    }
}
