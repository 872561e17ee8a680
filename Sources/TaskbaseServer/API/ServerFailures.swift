import PGStore
import TaskbaseWire

/// Failures that are no refusal of the service: the database away or busy is 503 with
/// `Retry-After` (the pool had no connection free, or the connection was lost); anything else is
/// a 500 whose detail says what failed, never a secret.
enum ServerFailures {
    /// SQLSTATEs that mean "the server is not there right now", not "this request is wrong":
    /// class 08 (connection exception), 57P01–57P05 (shut down, crashed, starting up, database
    /// dropped, idle session timeout) and class 53 (out of resources: too many connections).
    static func isUnavailable(_ sqlState: String?) -> Bool {
        guard let sqlState else { return false }
        return sqlState.hasPrefix("08") || sqlState.hasPrefix("57P") || sqlState.hasPrefix("53")
    }

    /// The response for `error`.
    static func response(for error: any Error) -> HTTPResponse {
        if let error = error as? PGError, error.kind == .timeout || error.isConnectionLost || isUnavailable(error.sqlState) {
            let problem = ProblemDocument(.unavailable, detail: "the database is unreachable or busy; retry after the Retry-After seconds")
            return ServerProblems.response(problem, headers: [("Retry-After", "1")])
        }
        if error is CancellationError {
            return ServerProblems.response(ProblemDocument(.unavailable, detail: "the server is shutting down"), headers: [("Retry-After", "1")])
        }
        return ServerProblems.response(ProblemDocument(.internal, detail: "the server failed: \(String(describing: type(of: error)))"))
    }
}
