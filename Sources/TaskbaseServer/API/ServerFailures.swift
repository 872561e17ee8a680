import PGStore
import TaskCore
import TaskbaseWire

/// Failures that are no refusal of the service: the database away or busy is 503 with
/// `Retry-After` (the pool had no connection free, the connection was lost, a lock was not
/// granted within lock_timeout, a statement ran past statement_timeout, a serialization failure
/// outlasted the retries); a value the
/// database cannot store (a NUL character, SQLSTATE class 22) is 422; the database refusing the
/// caller (SQLSTATE 42501, row security) is 403 permission_denied; anything else is a 500 whose
/// detail says what failed, never a secret.
enum ServerFailures {
    /// SQLSTATEs that mean "the server is not there right now", not "this request is wrong":
    /// class 08 (connection exception), 57P01–57P05 (shut down, crashed, starting up, database
    /// dropped, idle session timeout) and class 53 (out of resources: too many connections).
    static func isUnavailable(_ sqlState: String?) -> Bool {
        guard let sqlState else { return false }
        return sqlState.hasPrefix("08") || sqlState.hasPrefix("57P") || sqlState.hasPrefix("53")
    }

    /// SQLSTATEs that mean "the schema lacks what this server uses": an undefined function
    /// (42883), table (42P01) or column (42703), as a server newer than the database's
    /// migrations meets them while `/readyz` says so.
    static func isSchemaBehind(_ sqlState: String?) -> Bool {
        ["42883", "42P01", "42703"].contains(sqlState)
    }

    /// The response for `error`, carrying for the access log what failed (`failure`).
    static func response(for error: any Error) -> HTTPResponse {
        var response = answer(for: error)
        if response.status >= 500 { response.failure = logged(error) }
        return response
    }

    /// What the access log says of `error`: a database error's SQLSTATE, message and constraint
    /// (not its detail or context, which may quote row values), else only the error's type.
    static func logged(_ error: any Error) -> String {
        guard let error = error as? PGError else { return String(describing: type(of: error)) }
        return ([error.sqlState ?? "\(error.kind)", error.message] + (error.constraint.map { ["constraint \($0)"] } ?? [])).joined(separator: ": ")
    }

    /// The triggers that refuse with 42501 what no program of ours sends (0023, 0028, 0031,
    /// 0032, 0034), named by the error's context ("PL/pgSQL function taskbase_… at RAISE"):
    /// function names, unlike the messages, are the same in every `lc_messages`.
    static let integrityChecks = [
        "taskbase_tasks_numbered_by_counter", "taskbase_change_taken_from_counter", "taskbase_task_ids_drawn",
        "taskbase_counters_only_advance", "taskbase_tokens_stay_revoked",
    ]

    /// Whether `error` is one of `integrityChecks`' refusals.
    static func isIntegrityCheck(_ error: PGError) -> Bool {
        guard let context = error.context else { return false }
        return integrityChecks.contains { context.contains($0) }
    }

    /// The response for `error`.
    private static func answer(for error: any Error) -> HTTPResponse {
        if let error = error as? PGError, isSchemaBehind(error.sqlState) {
            // Once a bare 500 ("the server failed: PGError") with nothing logged.
            let detail = "the database's schema is older than this server needs (\(error.message)); \(SchemaStatus.migrationAdvice)"
            return ServerProblems.response(ProblemDocument(.unavailable, detail: detail), headers: [("Retry-After", "5")])
        }
        if let error = error as? PGError, error.code == .lockNotAvailable || error.isRetryableTransactionFailure || error.isCanceled {
            // Busy, not broken: a lock held past the session's lock_timeout (55P03), a statement
            // cut off by its statement_timeout (57014; a cancelled request's statement is cut off
            // the same way, and its answer goes nowhere), or a serialization failure or deadlock
            // the store's own retries did not get past. The transaction rolled back; a retry may
            // well succeed.
            let problem = ProblemDocument(
                .unavailable,
                detail: "the database was too busy to take this request (\(error.message)); nothing was changed: retry after the Retry-After seconds")
            return ServerProblems.response(problem, headers: [("Retry-After", "1")])
        }
        if let error = error as? PGError, error.kind == .timeout || error.isConnectionLost || isUnavailable(error.sqlState) {
            let problem = ProblemDocument(.unavailable, detail: "the database is unreachable or busy; retry after the Retry-After seconds")
            return ServerProblems.response(problem, headers: [("Retry-After", "1")])
        }
        if let error = error as? PGError, error.kind == .invalidParameter || error.sqlState?.hasPrefix("22") == true {
            // A value the database cannot take (a NUL character in a text, a number out of
            // range) that got past the service's rules: the request's fault, not the server's.
            let reason = error.kind == .invalidParameter ? "holds a NUL character (U+0000), which cannot be stored" : error.message
            let problem = ProblemDocument(.validation, detail: "a value was refused by the database: \(reason)", field: "body", reason: reason)
            return ServerProblems.response(problem)
        }
        if let error = error as? PGError, error.code == .insufficientPrivilege, !isIntegrityCheck(error) {
            // Row security or a definer function refusing the caller (SQLSTATE 42501): a refusal,
            // as taskctl reports it (exit 4), never a 500. The service judges access first; the
            // database refuses only what changed meanwhile (a role taken away by a concurrent
            // request). The integrity triggers' 42501 (a task number, a change sequence or an id
            // not taken as it must be) is no caller's doing but the server's: a 500 with its cause
            // in the access log.
            let refusal = TaskError.permissionDenied(
                what: "make this change", why: "the database refused it (\(error.message)): the caller's role changed meanwhile or does not allow it")
            return ServerProblems.response(ProblemDocument(refusal))
        }
        if error is CancellationError {
            return ServerProblems.response(ProblemDocument(.unavailable, detail: "the server is shutting down"), headers: [("Retry-After", "1")])
        }
        return ServerProblems.response(ProblemDocument(.internal, detail: "the server failed: \(String(describing: type(of: error)))"))
    }
}
