import PGStore
import TaskbaseWire

/// Failures that are no refusal of the service: the database away or busy is 503 with
/// `Retry-After` (the pool had no connection free, or the connection was lost); anything else is
/// a 500 whose detail says what failed, never a secret.
enum ServerFailures {
    /// The response for `error`.
    static func response(for error: any Error) -> HTTPResponse {
        if let error = error as? PGError, error.kind == .timeout || error.isConnectionLost || error.kind == .connection {
            let problem = ProblemDocument(.unavailable, detail: "the database is unreachable or busy; retry after the Retry-After seconds")
            return ServerProblems.response(problem, headers: [("Retry-After", "1")])
        }
        if error is CancellationError {
            return ServerProblems.response(ProblemDocument(.unavailable, detail: "the server is shutting down"), headers: [("Retry-After", "1")])
        }
        return ServerProblems.response(ProblemDocument(.internal, detail: "the server failed: \(String(describing: type(of: error)))"))
    }
}
