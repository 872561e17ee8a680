import TaskCore
import TaskbaseWire

/// The preconditions a request carries (RFC 9110 §13.1.1-2), judged as §13.2.2 orders them,
/// against the resource's current entity tag: a task's version (strong), the weak digest every
/// other JSON read has (`DigestETag`), or none (an event stream, an export). A task's own
/// PATCH and DELETE turn them into the version the store checks (`APIHandlers.conditionally`);
/// every other route judges them here, after its access checks (an outsider still gets 404, a
/// viewer 403): a false one is 412 and nothing is done.
///
/// `If-Match` compares strongly: a weak tag never matches, so on a resource whose tag is weak
/// any `If-Match` but `*` is false; `*` is true when the resource exists. `If-None-Match`
/// compares weakly: on a change, `*` is false when the resource exists, a list when one of its
/// tags is the current one's; on a read it gives 304 (`DigestETag.notModified`).
struct Preconditions: Sendable {
    /// The `If-Match` value, checked to be `*` or a list of entity tags.
    let ifMatch: String?
    /// The `If-None-Match` value, as sent.
    let ifNoneMatch: String?

    /// The preconditions of `request`; an `If-Match` that is not a list of entity tags is a
    /// validation error on the header, as on a task.
    init(_ request: HTTPRequest) throws {
        ifMatch = request.header("if-match")
        ifNoneMatch = request.header("if-none-match")
        if let ifMatch { _ = try ETag.condition(in: ifMatch, field: "If-Match") }
    }

    /// Whether the request carries no precondition: nothing to read or judge.
    var isEmpty: Bool { ifMatch == nil && ifNoneMatch == nil }

    /// Whether `If-Match` holds for a resource that `exists` with entity tag `tag` (step 1).
    func ifMatchHolds(exists: Bool, tag: String?) -> Bool {
        guard let ifMatch else { return true }
        return exists && Self.strongMatch(ifMatch, tag)
    }

    /// Whether both hold for a change (steps 1 and 3 for a method other than GET and HEAD).
    func holdForChange(exists: Bool, tag: String?) -> Bool {
        guard ifMatchHolds(exists: exists, tag: tag) else { return false }
        guard let ifNoneMatch else { return true }
        // Nothing matches a resource that does not exist, not even `*`.
        return !exists || !(tag.map { DigestETag.matches(ifNoneMatch, $0) } ?? (ifNoneMatch.trimmingSpaces() == "*"))
    }

    /// Whether `header`, an `If-Match` value already checked to be `*` or a list of entity tags,
    /// names `tag` by the strong comparison: `*`, or an entity tag equal to it, neither weak.
    static func strongMatch(_ header: String, _ tag: String?) -> Bool {
        DigestETag.matches(header, tag, strongly: true)
    }

    /// The 412 for a request whose preconditions are false for `what` (e.g. `team CORE`), with
    /// its current `tag` when it has one. A task's (a version) is the `conflict` a stale
    /// `If-Match` on a change gets, so that a client reads the current version alike; any other
    /// resource's is `precondition_failed`.
    /// `exists` says a resource without a tag (a stream) is there all the same.
    func refusal(_ request: HTTPRequest, what: String, tag: String?, exists: Bool = false) -> HTTPResponse {
        let sent = [ifMatch.map { "If-Match: \($0)" }, ifNoneMatch.map { "If-None-Match: \($0)" }].compactMap { $0 }.joined(separator: ", ")
        let now = tag.map { "its ETag is \($0)" } ?? (exists ? "it has no ETag, so only * matches it" : "it does not exist")
        let undone = request.method == "GET" || request.method == "HEAD" ? "nothing is sent" : "nothing was changed"
        let advice = "read it again (GET) and send the ETag it answers, or drop the condition"
        let headers = tag.map { [("ETag", $0)] } ?? []
        if let tag, !tag.hasPrefix("W/"), let version = Int64(tag.dropFirst().dropLast()) {
            let problem = ProblemDocument(
                .conflict, detail: "\(what) is at version \(version), which \(sent) does not allow; \(undone): \(advice)", what: what,
                currentVersion: version)
            return ServerProblems.response(problem, headers: headers)
        }
        let problem = ProblemDocument(.preconditionFailed, detail: "\(sent) is false for \(what): \(now); \(undone): \(advice)", what: what)
        return ServerProblems.response(problem, headers: headers)
    }

    /// Turns a `2xx` answer to `GET` or `HEAD` into 412 when its `If-Match` is false for the
    /// resource the answer shows (it exists: `*` holds; a tag only when it is the answer's
    /// strong `ETag`, a task's version; a weak one, which the router adds later, never does).
    /// Run on the handler's answer, after its access checks. A stream (an event stream, an
    /// export) is ended before it starts. An `If-Match` that is not `*` or a list of entity tags
    /// is thrown as a validation error on the header (422), as on a change, not judged false.
    static func judgeRead(_ response: inout HTTPResponse, for request: HTTPRequest) throws {
        guard request.method == "GET" || request.method == "HEAD", (200..<300).contains(response.status),
            let ifMatch = request.header("if-match")
        else { return }
        do {
            _ = try ETag.condition(in: ifMatch, field: "If-Match")
        } catch {
            if case .stream(let stream) = response.body { stream.abort() }
            throw error
        }
        guard !strongMatch(ifMatch, response.header("etag")) else { return }
        if case .stream(let stream) = response.body { stream.abort() }
        // The 412 names the tag the 200 would have carried, weak ones too.
        var shown = response
        DigestETag.tag(&shown, for: request)
        response = Preconditions(ifMatch: ifMatch, ifNoneMatch: nil).refusal(request, what: request.path, tag: shown.header("etag"))
    }

    /// For a read answered with a stream (an event stream, an export), which has no entity tag:
    /// its `If-Match` judged by the handler after its access checks and before it opens
    /// anything (a snapshot, a subscription), so a request answered 412 (or 422, a malformed
    /// one) holds no export slot or connection a moment longer. Only `*` holds. nil: go on.
    static func streamRefusal(_ request: HTTPRequest) throws -> HTTPResponse? {
        guard let ifMatch = request.header("if-match") else { return nil }
        _ = try ETag.condition(in: ifMatch, field: "If-Match")
        guard !strongMatch(ifMatch, nil) else { return nil }
        return Preconditions(ifMatch: ifMatch, ifNoneMatch: nil).refusal(request, what: request.path, tag: nil, exists: true)
    }

    private init(ifMatch: String?, ifNoneMatch: String?) {
        self.ifMatch = ifMatch
        self.ifNoneMatch = ifNoneMatch
    }
}
