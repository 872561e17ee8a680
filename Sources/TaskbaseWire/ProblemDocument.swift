import TaskCore

/// An RFC 9457 problem (`application/problem+json`): the HTTP API's every refusal. Besides
/// `type`, `title`, `status` and `detail` it carries the `TaskError`'s own values (`code`,
/// `field`, `reason`, `what`, `why`, `current_version`), so a client rebuilds the error exactly.
public struct ProblemDocument: Codable, Hashable, Sendable, Error {
    /// `urn:taskbase:problem:<code>`.
    public var type: String
    /// A short summary of the kind of problem, the same for every problem of a code.
    public var title: String
    /// The HTTP status.
    public var status: Int
    /// One line for people: what was refused and why.
    public var detail: String
    /// The kind of problem, `ProblemCode`'s raw value.
    public var code: String
    /// `validation`: the field, as the caller spelled it.
    public var field: String?
    /// `validation`: what is wrong with it.
    public var reason: String?
    /// `not_found`, `permission_denied`, `conflict`, `already_exists`: what was refused.
    public var what: String?
    /// `permission_denied`: the missing role or the disabled account.
    public var why: String?
    /// `conflict`: the task's current version (also the response's ETag).
    public var currentVersion: Int64?

    enum CodingKeys: String, CodingKey {
        case type, title, status, detail, code, field, reason, what, why, currentVersion = "current_version"
    }

    /// A problem of `code`; `status` defaults to the code's.
    public init(
        _ code: ProblemCode, detail: String, status: Int? = nil, field: String? = nil, reason: String? = nil, what: String? = nil,
        why: String? = nil, currentVersion: Int64? = nil
    ) {
        type = "urn:taskbase:problem:" + code.rawValue
        title = code.title
        self.status = status ?? code.status
        self.detail = detail
        self.code = code.rawValue
        self.field = field
        self.reason = reason
        self.what = what
        self.why = why
        self.currentVersion = currentVersion
    }

    /// The problem of a service refusal; `status` overrides the code's (400 for a body that is
    /// not JSON at all, rather than 422).
    public init(_ error: TaskError, status: Int? = nil) {
        switch error {
        case .notFound(let what):
            self.init(.notFound, detail: error.description, status: status, what: what)
        case .permissionDenied(let what, let why):
            self.init(.permissionDenied, detail: error.description, status: status, what: what, why: why)
        case .conflict(let what, let currentVersion):
            self.init(.conflict, detail: error.description, status: status, what: what, currentVersion: currentVersion)
        case .alreadyExists(let what):
            self.init(.alreadyExists, detail: error.description, status: status, what: what)
        case .validation(let field, let reason):
            self.init(.validation, detail: error.description, status: status, field: field, reason: reason)
        }
    }

    /// The service refusal this problem reports, or nil for a problem of the HTTP layer
    /// (authentication, size limits, overload) or one missing the values its code needs.
    /// Every code is named below (no `default`): a code added for a new `TaskError` case does
    /// not compile until it says how the client rebuilds it.
    public var taskError: TaskError? {
        guard let code = ProblemCode(rawValue: code) else { return nil }
        switch code {
        case .notFound: return what.map { .notFound(what: $0) }
        case .permissionDenied: return what.flatMap { what in why.map { .permissionDenied(what: what, why: $0) } }
        case .conflict: return what.flatMap { what in currentVersion.map { .conflict(what: what, currentVersion: $0) } }
        case .alreadyExists: return what.map { .alreadyExists(what: $0) }
        case .validation: return field.flatMap { field in reason.map { .validation(field: field, reason: $0) } }
        case .preconditionFailed, .unauthorized, .methodNotAllowed, .notImplemented, .idempotencyKeyReused, .idempotencyKeyInUse,
            .answerWithheld, .answerLost, .payloadTooLarge, .headersTooLarge, .unsupportedMediaType, .tooManyRequests, .unavailable,
            .internal:
            return nil
        }
    }
}

/// The kinds of problem the HTTP API reports, with their status and title.
public enum ProblemCode: String, Sendable, CaseIterable {
    /// `TaskError.notFound`, and any route or resource an outsider may not see.
    case notFound = "not_found"
    /// `TaskError.permissionDenied`: a member whose role does not allow the call.
    case permissionDenied = "permission_denied"
    /// `TaskError.conflict`: a stale `If-Match`.
    case conflict
    /// `If-Match` or `If-None-Match` is false for a resource without a version of its own (a
    /// team, a member, a read): nothing was done; `what` names the resource.
    case preconditionFailed = "precondition_failed"
    /// `TaskError.alreadyExists`.
    case alreadyExists = "already_exists"
    /// `TaskError.validation`: a value, or the body itself, is not acceptable.
    case validation
    /// No credential, or one that is unknown, expired or revoked.
    case unauthorized
    /// The route exists but not with this method.
    case methodNotAllowed = "method_not_allowed"
    /// No route of the server takes the request's method, on any path (RFC 9110 §15.6.2).
    case notImplemented = "not_implemented"
    /// An `Idempotency-Key` reused with a different request.
    case idempotencyKeyReused = "idempotency_key_reused"
    /// The first request with this `Idempotency-Key` is still running, or this one was held up
    /// past its lease and another attempt took its key over (this one changed nothing): retry
    /// shortly, and the retry gets the answer of the attempt that holds the key.
    case idempotencyKeyInUse = "idempotency_key_in_use"
    /// The first request with this `Idempotency-Key` succeeded, but its answer held a secret
    /// (a new token), shown only once: it is not replayed.
    case answerWithheld = "answer_withheld"
    /// The first request with this `Idempotency-Key` took effect, but its answer was lost (it
    /// failed after its change was made, or its server stopped): it does not run again.
    case answerLost = "answer_lost"
    /// The body is larger than the server accepts.
    case payloadTooLarge = "payload_too_large"
    /// The request's headers are larger than the server accepts.
    case headersTooLarge = "headers_too_large"
    /// The body's media type is not one the route reads.
    case unsupportedMediaType = "unsupported_media_type"
    /// Too many requests from this client.
    case tooManyRequests = "too_many_requests"
    /// The database is unreachable or every connection is busy; retry after `Retry-After`.
    case unavailable
    /// A fault of the server; the access log has the details.
    case `internal`

    /// The HTTP status of this kind of problem.
    public var status: Int {
        switch self {
        case .notFound: 404
        case .permissionDenied: 403
        case .conflict: 412
        case .preconditionFailed: 412
        case .alreadyExists: 409
        case .validation: 422
        case .unauthorized: 401
        case .methodNotAllowed: 405
        case .notImplemented: 501
        case .idempotencyKeyReused: 422
        case .idempotencyKeyInUse: 409
        case .answerWithheld: 409
        case .answerLost: 409
        case .payloadTooLarge: 413
        case .headersTooLarge: 431
        case .unsupportedMediaType: 415
        case .tooManyRequests: 429
        case .unavailable: 503
        case .internal: 500
        }
    }

    /// The problem's `title`.
    public var title: String {
        switch self {
        case .notFound: "Not found"
        case .permissionDenied: "Permission denied"
        case .conflict: "Version conflict"
        case .preconditionFailed: "Precondition failed"
        case .alreadyExists: "Already exists"
        case .validation: "Input rejected"
        case .unauthorized: "Authentication required"
        case .methodNotAllowed: "Method not allowed"
        case .notImplemented: "Method not implemented"
        case .idempotencyKeyReused: "Idempotency key reused"
        case .idempotencyKeyInUse: "Idempotency key in use"
        case .answerWithheld: "Answer shown once"
        case .answerLost: "Answer lost"
        case .payloadTooLarge: "Body too large"
        case .headersTooLarge: "Headers too large"
        case .unsupportedMediaType: "Unsupported media type"
        case .tooManyRequests: "Too many requests"
        case .unavailable: "Service unavailable"
        case .internal: "Internal error"
        }
    }
}
