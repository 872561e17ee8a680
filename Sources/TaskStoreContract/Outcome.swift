import TaskCore

/// How a call ended, reduced to what the contract specifies, so expectations read as one line.
public enum Outcome: Hashable, Sendable, CustomStringConvertible {
    /// It succeeded.
    case ok
    /// `TaskError.notFound`.
    case notFound
    /// `TaskError.permissionDenied`.
    case denied
    /// `TaskError.conflict` with this current version.
    case conflict(currentVersion: Int64)
    /// `TaskError.alreadyExists`.
    case alreadyExists
    /// `TaskError.validation` naming this field.
    case invalid(field: String)
    /// Any other error, described.
    case failed(String)

    /// Runs `body` and reports how it ended.
    public static func of(_ body: () async throws -> Void) async -> Outcome {
        do {
            try await body()
            return .ok
        } catch let error as TaskError {
            switch error {
            case .notFound: return .notFound
            case .permissionDenied: return .denied
            case .conflict(_, let version): return .conflict(currentVersion: version)
            case .alreadyExists: return .alreadyExists
            case .validation(let field, _): return .invalid(field: field)
            }
        } catch {
            return .failed(String(describing: error))
        }
    }

    /// Readable in test failure messages.
    public var description: String {
        switch self {
        case .ok: "ok"
        case .notFound: "not found"
        case .denied: "permission denied"
        case .conflict(let version): "conflict at version \(version)"
        case .alreadyExists: "already exists"
        case .invalid(let field): "invalid \(field)"
        case .failed(let text): "failed: \(text)"
        }
    }
}
