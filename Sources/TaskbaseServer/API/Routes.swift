import APITokens
import Foundation
import TaskCore
import TaskbaseWire

/// What the routes need beside the service: how tokens are made and the server's name.
public struct APIOptions: Sendable {
    /// Hashing (and making) token secrets.
    public var secrets: TokenSecrets
    /// `taskserve --version`, reported by `/healthz`.
    public var version: String
    /// The interval between heartbeat comments on an event stream.
    public var heartbeat: Duration
    /// The bytes an event stream may hold for a slow client.
    public var streamBufferBytes: Int
    /// The largest CSV body `POST /v1/teams/{team}/imports` takes (413 beyond).
    public var maxImportBytes: Int
    /// How long an event stream whose queue is full waits for the client to make room before
    /// it is cut off as too slow (a burst then does not cut off a client that keeps reading).
    public var streamPatience: Duration
    /// How long the emails a task response names are remembered per team (`DirectoryCache`):
    /// the longest a changed email can show its old value; zero reads them on every response.
    public var directoryTTL: Duration = .seconds(5)
    /// How long a `/readyz` answer is reused (`ReadinessCheck`): the most database checks a
    /// flood of probes, which need no token, can cause is one per this long.
    public var readinessTTL: Duration = .seconds(1)
    /// The requests each user may make (`RateLimiter`); nil: no limit.
    public var rateLimit: RateLimit?
    /// The failed token lookups each client address may cause (`TokenVerifier`): by default
    /// `defaultAuthFailureLimit`; nil: any number.
    public var authFailureLimit: RateLimit? = Self.defaultAuthFailureLimit
    /// The proxies whose `X-Forwarded-For` says which client address a request is charged to
    /// (`TrustedProxies`); none by default.
    public var trustedProxies: TrustedProxies = .none
    /// The web pages that may call the API from a browser (`CORSPolicy`); nil: none.
    public var cors: CORSPolicy?
    /// Where the requests answered are counted for `/metrics` (`APIMetrics`); nil: nowhere.
    public var metrics: APIMetrics?
    /// gzip for larger answers to clients that take it (`ResponseCompression`); nil: none.
    public var compression: ResponseCompression? = .standard
    /// The tasks an export reads (and hands to its client) at a time.
    public var exportPageSize = TaskQuery.limitRange.upperBound
    /// Exports read at once. Each reads the team in one snapshot, holding one database
    /// connection for as long as its client takes to download; one more is 503 with
    /// `Retry-After`, so slow downloads can never take every connection.
    public var maxExports = 4
    /// Imports run at once. Each runs in one transaction on a database connection it holds for
    /// the whole file; one more is 503 with `Retry-After`, so imports can never take every
    /// connection.
    public var maxImports = 4
    /// The event streams one user may hold open at once on this server; one more is 429 with
    /// `Retry-After` (a client reopening its stream in a loop, or one token's holder, cannot take
    /// every connection the server has).
    public var maxStreamsPerUser = 16
    /// How a request holding an `Idempotency-Key` keeps its claim while it runs, and when a
    /// claim whose server stopped is taken for abandoned (`IdempotencyCache`); the same on
    /// every process sharing the database.
    public var idempotencyLease: IdempotencyLease = .standard
    /// The identity provider whose tokens are accepted beside API tokens; nil: API tokens only.
    public var identity: IdentityTokenVerifier?
    /// Tests only: runs after an event stream has read the log's end it opens at, before it
    /// reads anything more (to commit changes in between).
    var afterStreamOpened: (@Sendable () async -> Void)?
    /// 600 failed token lookups a minute from one address.
    public static let defaultAuthFailureLimit = RateLimit(requests: 600, per: .seconds(60))

    /// Options with these values.
    public init(
        secrets: TokenSecrets, version: String = "dev", heartbeat: Duration = .seconds(15), streamBufferBytes: Int = 256 << 10,
        maxImportBytes: Int = 64 << 20, streamPatience: Duration = .seconds(2)
    ) {
        self.streamPatience = streamPatience
        self.secrets = secrets
        self.version = version
        self.heartbeat = heartbeat
        self.streamBufferBytes = streamBufferBytes
        self.maxImportBytes = maxImportBytes
    }
}

/// Builds the API's router over `service`, authenticating with `verifier`.
public func buildRouter(service: TaskService, verifier: TokenVerifier, options: APIOptions) -> Router {
    buildRouter(service: service, verifier: verifier, options: options, eventHubs: TeamEventHubs(service: service))
}

/// The router over `service`, its event streams fanned out by `eventHubs`.
func buildRouter(service: TaskService, verifier: TokenVerifier, options: APIOptions, eventHubs: TeamEventHubs) -> Router {
    let api = APIHandlers(
        service: service, options: options, idempotency: IdempotencyCache(service: service, lease: options.idempotencyLease), verifier: verifier,
        eventHubs: eventHubs,
        exports: Admission(limit: options.maxExports), imports: Admission(limit: options.maxImports),
        streams: KeyedAdmission(limit: options.maxStreamsPerUser))
    let directories = api.directories
    verifier.onInvalidation { directories.forgetAll() }
    return Router(
        routes: api.routes, authenticator: verifier, rateLimit: options.rateLimit, cors: options.cors, compression: options.compression)
}

/// The handlers, one per route, each a thin translation between HTTP and `TaskService`.
struct APIHandlers: Sendable {
    let service: TaskService
    let options: APIOptions
    let idempotency: IdempotencyCache
    /// Checks tokens again for long-lived responses (event streams).
    let verifier: TokenVerifier
    /// One fan-out per team for the event streams.
    let eventHubs: TeamEventHubs
    /// The exports running, each holding a database connection (`APIOptions.maxExports`).
    let exports: Admission
    /// The imports running, each holding a database connection (`APIOptions.maxImports`).
    let imports: Admission
    /// The event streams open, per user (`APIOptions.maxStreamsPerUser`).
    let streams: KeyedAdmission<UserID>
    /// The people task responses name, per team, so that a read costs only the read.
    let directories = DirectoryCache()

    /// What a PATCH body may be sent as: RFC 7396's merge patch, or plain JSON as the Swift
    /// client sends it; never RFC 6902's JSON Patch, which means something else.
    static let patchTypes = ["application/merge-patch+json", "application/json"]

    /// The route table, which the OpenAPI document mirrors; each route's query parameters are
    /// declared with it (`RouteQuery`).
    var routes: [Route] {
        // The same bytes for every probe: encoded and tagged once, not per request (its weak
        // ETag, a SHA-256 of the body, was computed again for every probe).
        let health = Result { DigestETag.tagged(try HTTPResponse.json(["status": "ok", "version": options.version])) }
        // Built (and gzipped) on the first request and kept: building it takes tens of
        // milliseconds on the I/O thread, which anyone could ask for again and again without a token.
        let document = MadeOnce {
            let response = DigestETag.tagged(OpenAPIDocument.response(version: options.version, routes: self.routes))
            return options.compression?.prepared(response) ?? response
        }
        let readiness = ReadinessCheck(freshFor: options.readinessTTL) { await self.readiness() }
        return [
            Route("GET", "/healthz", authenticated: false) { _ in try health.get() },
            Route("GET", "/readyz", authenticated: false) { _ in await readiness.answer() },
            Route("GET", "/openapi.json", authenticated: false) { _ in document.value },
            Route("GET", "/v1/me") { context in try .json(UserDocument(context.caller!.user)) },
            Route("GET", "/v1/me/tokens") { context in try await listTokens(context) },
            // The answer holds the token's secret, which is shown once and never stored.
            Route("POST", "/v1/me/tokens") { context in try await idempotent(context, keepsBody: false) { try await createToken(context) } },
            Route("GET", "/v1/me/tokens/{id}") { context in try await showToken(context) },
            // Revoking a token revoked already is 204 again: a retry needs no Idempotency-Key.
            Route("DELETE", "/v1/me/tokens/{id}") { context in try await revokeToken(context) },
            Route("GET", "/v1/teams") { context in try await listTeams(context) },
            Route("POST", "/v1/teams") { context in try await idempotent(context) { try await createTeam(context) } },
            Route("GET", "/v1/teams/{team}") { context in
                let membership = try await service.team(try teamKey(context), as: try context.actor)
                return try .json(TeamDocument(membership.team, role: membership.role))
            },
            Route("PATCH", "/v1/teams/{team}") { context in try await renameTeam(context) },
            // The other DELETEs honour an Idempotency-Key as a POST does: a retry after an answer
            // lost (the deletion done) gets the first answer, not the 404 of what it removed.
            Route("DELETE", "/v1/teams/{team}") { context in
                let (team, actor) = (try teamKey(context), try context.actor)
                defer { directories.forget(team) }
                return try await idempotent(context) {
                    try await managingTeam(context, team, as: actor) {
                        try await service.deleteTeam(team, as: actor)
                        return .empty(204)
                    }
                }
            },
            Route("GET", "/v1/teams/{team}/summary") { context in
                let (team, actor) = (try teamKey(context), try context.actor)
                let membership = try await service.team(team, as: actor)
                return try .json(SummaryDocument(try await service.summary(of: team, as: actor), role: membership.role))
            },
            Route("GET", "/v1/teams/{team}/members") { context in
                try .json(try await service.members(of: try teamKey(context), as: try context.actor).map(MemberDocument.init))
            },
            Route("GET", "/v1/teams/{team}/members/{user}") { context in try await member(context) },
            Route("PUT", "/v1/teams/{team}/members/{user}") { context in try await setRole(context) },
            Route("DELETE", "/v1/teams/{team}/members/{user}") { context in
                let (team, user) = (try teamKey(context), UserRef(context.parameter("user")))
                defer { directories.forget(team) }
                return try await idempotent(context) {
                    try await changingMember(context, user, of: team) { condition in
                        try .json(
                            MemberRemovalDocument(try await service.removeMember(user, from: team, as: try context.actor, condition: condition)))
                    }
                }
            },
            Route("GET", "/v1/teams/{team}/tasks", query: .taskList) { context in try await listTasks(context) },
            Route("POST", "/v1/teams/{team}/tasks") { context in try await idempotent(context) { try await createTask(context) } },
            // Idempotent, counting its options as it reads them (`importTasks`).
            Route("POST", "/v1/teams/{team}/imports", query: .imports, maxBodyBytes: options.maxImportBytes, spoolsBody: true) { context in
                try await importTasks(context)
            },
            Route("GET", "/v1/teams/{team}/events", query: .events) { context in try await events(context) },
            Route("GET", "/v1/teams/{team}/export", query: .export) { context in try await exportTasks(context) },
            Route("GET", "/v1/tasks/{key}") { context in try await showTask(context) },
            Route("PATCH", "/v1/tasks/{key}") { context in try await updateTask(context) },
            Route("DELETE", "/v1/tasks/{key}") { context in
                let (key, actor) = (try taskKey(context), try context.actor)
                do {
                    return try await idempotent(context) {
                        try await conditionally(context, of: key, as: actor) { expected in
                            try await service.deleteTask(key, expectedVersion: expected, as: actor)
                            return .empty(204)
                        }
                    }
                } catch TaskError.notFound(let what) {
                    // A task whose history ends in its deletion is gone, not unknown: 410, so a
                    // client retrying a DELETE whose answer was lost tells "deleted (by that
                    // attempt, or someone)" from "never there". Only to those who may delete in
                    // the team (refused before, 403) and read its history; outsiders get 404.
                    let deleted = (try? await service.history(of: key, as: actor))?.last?.kind == .deleted
                    throw ProblemDocument(.notFound(what: what), status: deleted ? 410 : nil)
                }
            },
            Route("GET", "/v1/tasks/{key}/history", query: .history) { context in try await history(context) },
        ]
    }

    // MARK: - Health

    func readiness() async -> HTTPResponse {
        let schema: SchemaStatus
        do {
            schema = try await service.schemaStatus()
        } catch {
            let problem = ProblemDocument(.unavailable, detail: "the database is not reachable")
            return ServerProblems.response(problem, headers: [("Retry-After", "1")])
        }
        guard schema == .current else {
            let problem = ProblemDocument(.unavailable, detail: "\(schema): \(SchemaStatus.migrationAdvice)")
            return ServerProblems.response(problem, headers: [("Retry-After", "5")])
        }
        return Self.ready
    }

    /// `/readyz`'s body when ready, encoded once.
    static let ready = HTTPResponse(
        status: 200, headers: [("Content-Type", "application/json")], body: .bytes(Array(#"{"status":"ready"}"#.utf8) + [UInt8(ascii: "\n")]))

    // MARK: - Tokens

    func listTokens(_ context: RouteContext) async throws -> HTTPResponse {
        try .json(try await service.ownTokens(as: try context.actor).map(TokenDocument.init))
    }

    func createToken(_ context: RouteContext) async throws -> HTTPResponse {
        let body = try context.request.body.isEmpty ? CreateTokenRequest() : context.body(CreateTokenRequest.self)
        let lifetime = try body.expiresIn.map { try TokenFields.lifetime($0) } ?? TokenFields.defaultLifetime
        // The body is judged before the preconditions, as a task's draft is: input that no
        // condition could make right is 422 whatever the condition says.
        _ = try TokenFields.name(body.name ?? "api")
        return try await creating(context, shown: { try await listTokens(context) }) {
            let (secret, digest) = try options.secrets.generate()
            let token = try await service.createOwnToken(name: body.name ?? "api", lifetime: lifetime, digest: digest, as: try context.actor)
            return try .json(
                NewTokenDocument(secret: secret, token: token), status: 201,
                headers: [("Location", "/v1/me/tokens/\(token.id)"), ("Cache-Control", "no-store")])
        }
    }

    /// One of the caller's own tokens (where a new token's `Location` points); anyone else's,
    /// or none, is the same 404.
    func showToken(_ context: RouteContext) async throws -> HTTPResponse {
        let id = try tokenID(context)
        guard let token = try await service.ownTokens(as: try context.actor).first(where: { $0.id == id }) else {
            throw TaskError.notFound(what: "token #\(id)")
        }
        return try .json(TokenDocument(token))
    }

    /// The token id in the path; one that is not a positive number names no token.
    private func tokenID(_ context: RouteContext) throws -> TokenID {
        guard let id = Int64(context.parameter("id")), id > 0 else { throw TaskError.notFound(what: "token #\(context.parameter("id"))") }
        return TokenID(id)
    }

    /// Revokes one of the caller's tokens, under the request's preconditions judged on the
    /// token as `GET /v1/me/tokens/{id}` shows it (none: it is not theirs).
    func revokeToken(_ context: RouteContext) async throws -> HTTPResponse {
        let id = try tokenID(context)
        let revoke = {
            _ = try await service.revokeOwnToken(id, as: try context.actor)
            // This process stops taking the token at once; the others when the doorbell rings.
            verifier.invalidate()
            return HTTPResponse.empty(204)
        }
        let preconditions = try Preconditions(context.request)
        guard !preconditions.isEmpty else { return try await revoke() }
        let shown: HTTPResponse?
        do {
            shown = try await showToken(context)
        } catch TaskError.notFound {
            shown = nil
        }
        return try await judged(preconditions, context, what: "token #\(id)", shown: shown, revoke)
    }

    // MARK: - Teams and members

    /// The teams the caller belongs to, with their role in each.
    func listTeams(_ context: RouteContext) async throws -> HTTPResponse {
        try .json(try await service.teams(as: try context.actor).map { TeamDocument($0.team, role: $0.role) })
    }

    func createTeam(_ context: RouteContext) async throws -> HTTPResponse {
        let body = try context.body(CreateTeamRequest.self)
        // Judged before the preconditions (as `createToken` does); the service judges them again.
        (_, _) = (try TeamKey(body.key, field: "key"), try UserFields.name(body.name))
        return try await creating(context, shown: { try await listTeams(context) }) {
            let team = try await service.createTeam(key: body.key, name: body.name, as: try context.actor)
            return try .json(TeamDocument(team, role: .owner), status: 201, headers: [("Location", "/v1/teams/\(team.key)")])
        }
    }

    func renameTeam(_ context: RouteContext) async throws -> HTTPResponse {
        let (team, actor) = (try teamKey(context), try context.actor)
        let name = try context.body(RenameTeamRequest.self, as: APIHandlers.patchTypes).name
        // Judged before the preconditions, as a new team's name is: a name no condition could
        // make right is 422 whatever the condition says (it was 412 with If-None-Match: *).
        _ = try UserFields.name(name)
        return try await managingTeam(context, team, as: actor) {
            let renamed = try await service.renameTeam(team, to: name, as: actor)
            return try .json(TeamDocument(renamed, role: try await service.team(team, as: actor).role))
        }
    }

    /// Runs `change`, an owner's PATCH or DELETE of `team`, when the request's preconditions
    /// hold for the team as `GET /v1/teams/{team}` shows it to `actor` (its weak tag). Judged
    /// only once the actor may make the change: anyone else gets the change's own refusal (an
    /// outsider 404, a member 403). The team's representation (key, name, the caller's role)
    /// may change between this read and the change; nothing is lost by it, as a team has no
    /// version: `If-Match` other than `*` is always false, `*` and `If-None-Match: *` judge
    /// only that it exists, which the change checks again (docs/api.md).
    private func managingTeam(
        _ context: RouteContext, _ team: TeamKey, as actor: UserRef, _ change: () async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        let preconditions = try Preconditions(context.request)
        guard !preconditions.isEmpty else { return try await change() }
        let membership = try await service.team(team, as: actor)
        guard membership.role >= TeamAction.manageTeam.minimumRole else { return try await change() }
        let shown = try HTTPResponse.json(TeamDocument(membership.team, role: membership.role))
        return try await judged(preconditions, context, what: "team \(team)", shown: shown, change)
    }

    /// Runs `change` when `preconditions` hold for the resource as its `GET` answers it now
    /// (`shown`, whose body's digest is its weak tag; nil: it does not exist); 412 otherwise.
    private func judged(
        _ preconditions: Preconditions, _ context: RouteContext, what: String, shown: HTTPResponse?, _ change: () async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        let tag = shown.map { DigestETag.of($0.bytes) }
        guard preconditions.holdForChange(exists: shown != nil, tag: tag) else { return preconditions.refusal(context.request, what: what, tag: tag) }
        return try await change()
    }

    /// Runs `change`, a PUT or DELETE of `user`'s membership of `team`, under the request's
    /// preconditions as a `MembershipCondition`: the service judges it after its permission
    /// checks and the store again as it makes the change, under the lock every membership
    /// change takes, so `If-None-Match: *` never overwrites a member added a moment earlier,
    /// nor `If-Match: *` adds back one removed. The member's tag is the weak one `GET
    /// /v1/teams/{team}/members/{user}` answers. False: 412 with the current tag, if any.
    private func changingMember(
        _ context: RouteContext, _ user: UserRef, of team: TeamKey, _ change: (MembershipCondition?) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        let preconditions = try Preconditions(context.request)
        guard !preconditions.isEmpty else { return try await change(nil) }
        let condition = MembershipCondition { current in
            preconditions.holdForChange(exists: current != nil, tag: current.flatMap(Self.tag(of:)))
        }
        do {
            return try await change(condition)
        } catch let failed as MembershipConditionFailed {
            let what = "member \(failed.current?.user.email ?? user.written) of team \(team)"
            return preconditions.refusal(context.request, what: what, tag: failed.current.flatMap(Self.tag(of:)))
        }
    }

    /// The weak tag `GET /v1/teams/{team}/members/{user}` answers for `member`.
    static func tag(of member: Member) -> String? {
        (try? HTTPResponse.json(MemberDocument(member)).bytes).map(DigestETag.of)
    }

    /// One member, named by email or `#id`, found among the members the caller may list: no
    /// lookup of users beyond them, so the answer for anyone else is the same 404 whoever
    /// they are, naming only what the caller sent.
    func member(_ context: RouteContext) async throws -> HTTPResponse {
        let team = try teamKey(context)
        let members = try await service.members(of: team, as: try context.actor)
        let ref = UserRef(context.parameter("user"))
        guard let member = members.first(where: { ref.names($0.user) }) else {
            throw TaskError.notFound(what: "member \(ref.written) of team \(team)")
        }
        return try .json(MemberDocument(member))
    }

    /// Adds a member (201: the PUT made the resource, RFC 9110 §9.3.4) or changes their role (200).
    func setRole(_ context: RouteContext) async throws -> HTTPResponse {
        let (role, team) = (try Role(parsing: try context.body(MemberRoleRequest.self).role), try teamKey(context))
        let user = UserRef(context.parameter("user"))
        defer { directories.forget(team) }
        return try await changingMember(context, user, of: team) { condition in
            let (member, added) = try await service.putMember(user, role: role, in: team, as: try context.actor, condition: condition)
            return try .json(MemberDocument(member), status: added ? 201 : 200)
        }
    }

    // MARK: - Tasks

    func createTask(_ context: RouteContext) async throws -> HTTPResponse {
        let (team, actor) = (try teamKey(context), try context.actor)
        let draft = try context.body(CreateTaskRequest.self).draft()
        return try await creating(
            context, access: { try await service.requireAccess(.writeTasks, in: team, as: actor) },
            // The collection as a GET without parameters answers it: the first page.
            shown: { try await listPage(context, TaskQuery()) }
        ) {
            let task = try await service.createTask(in: team, draft, as: actor)
            return try await taskResponse(task, actor: actor, status: 201, headers: [("Location", "/v1/tasks/\(task.key)")])
        }
    }

    /// One task; the router answers `304` when `If-None-Match` names its version (`DigestETag`).
    func showTask(_ context: RouteContext) async throws -> HTTPResponse {
        let actor = try context.actor
        return try await taskResponse(try await service.task(try taskKey(context), as: actor), actor: actor)
    }

    func updateTask(_ context: RouteContext) async throws -> HTTPResponse {
        let (key, actor) = (try taskKey(context), try context.actor)
        let changes = try context.body(TaskMergePatch.self, as: Self.patchTypes).changes()
        return try await conditionally(context, of: key, as: actor) { expected in
            try await taskResponse(try await service.updateTask(key, changes, expectedVersion: expected, as: actor), actor: actor)
        }
    }

    /// A page of a task's history (`limit`, default 100, and `after`, a cursor), as an array
    /// of entries, with a `Link: <…>; rel="next"` header while there is more. A long page is
    /// read and written on the global executor, as a long task page is.
    func history(_ context: RouteContext) async throws -> HTTPResponse {
        try await Self.cursorSentAsAfter {
            let query = try Self.historyQuery(context)
            return try await Self.page(of: query.limit) { try await historyPage(context, query) }
        }
    }

    /// Runs `answer`, a paged route's, naming a refused cursor as the client sent it: the query
    /// parameter `after` (TaskCore calls it `cursor`, as taskctl's `--after` reports it), so
    /// that `field` names what the request holds, as every other refused parameter does.
    static func cursorSentAsAfter(_ answer: () async throws -> HTTPResponse) async throws -> HTTPResponse {
        do {
            return try await answer()
        } catch TaskError.validation(field: "cursor", let reason) {
            throw TaskError.validation(field: "after", reason: reason)
        }
    }

    private func historyPage(_ context: RouteContext, _ query: HistoryQuery) async throws -> HTTPResponse {
        let (key, actor) = (try taskKey(context), try context.actor)
        let page = try await service.history(of: key, query, as: actor)
        let directory = try await directories.directory(
            naming: page.entries.flatMap(HistoryDocument.userIDs), in: key.team, ttl: options.directoryTTL, service: service, as: actor)
        return try .json(
            page.entries.map { HistoryDocument($0, users: directory) }, headers: context.request.nextPageLink(cursor: page.nextCursor?.encoded))
    }

    /// The history route's `limit` and `after`; any other parameter is refused.
    static func historyQuery(_ context: RouteContext) throws -> HistoryQuery {
        try context.refuseUndeclaredParameters()
        let request = context.request
        return HistoryQuery(limit: try request.limit(default: 100), after: try request.queryValue("after").map(HistoryCursor.init(encoded:)))
    }

    /// Longer pages than this are read and written on the global executor: a page of 1,000
    /// tasks takes ~7 ms of decoding and JSON, which every other request on the I/O thread
    /// would otherwise wait out (as for large request bodies and large gzipped answers).
    static let loopPageLimit = 100

    /// Answers a page of `limit` items with `answer`: where the request already runs (the I/O
    /// thread) when it is short, on the global executor when it is longer than `loopPageLimit`.
    static func page(of limit: Int, _ answer: () async throws -> HTTPResponse) async throws -> HTTPResponse {
        guard limit > loopPageLimit else { return try await answer() }
        return try await withTaskExecutorPreference(globalConcurrentExecutor) { try await answer() }
    }

    func listTasks(_ context: RouteContext) async throws -> HTTPResponse {
        try await Self.cursorSentAsAfter {
            let query = try TaskListParameters.query(from: context)
            return try await Self.page(of: query.limit) { try await listPage(context, query) }
        }
    }

    private func listPage(_ context: RouteContext, _ query: TaskQuery) async throws -> HTTPResponse {
        let (team, actor) = (try teamKey(context), try context.actor)
        let page = try await service.listTasks(in: team, query, as: actor)
        let directory = try await directories.directory(
            naming: page.tasks.flatMap(UserDirectory.userIDs), in: team, ttl: options.directoryTTL, service: service, as: actor)
        let today = service.clock.today()
        let document = TaskPageDocument(
            tasks: page.tasks.map { TaskDocument($0, users: directory, today: today) }, nextCursor: JSONNullable(page.nextCursor?.encoded))
        return try .json(document, headers: context.request.nextPageLink(cursor: page.nextCursor?.encoded))
    }

    /// A task as JSON with its ETag, for an actor who was just allowed to read or write it:
    /// its people's emails come from `directories`, so the database sees only that read or write.
    func taskResponse(_ task: TaskItem, actor: UserRef, status: Int = 200, headers: [(name: String, value: String)] = []) async throws -> HTTPResponse
    {
        let directory = try await directories.directory(
            naming: UserDirectory.userIDs(of: task), in: task.key.team, ttl: options.directoryTTL, service: service, as: actor)
        return try .json(
            TaskDocument(task, users: directory, today: service.clock.today()), status: status, headers: [("ETag", ETag.of(task.version))] + headers)
    }

    // MARK: - Parameters

    func teamKey(_ context: RouteContext) throws -> TeamKey {
        do {
            return try TeamKey(context.parameter("team"))
        } catch {
            throw TaskError.notFound(what: "team \(context.parameter("team"))")
        }
    }

    func taskKey(_ context: RouteContext) throws -> TaskKey {
        do {
            return try TaskKey(parsing: context.parameter("key"))
        } catch {
            throw TaskError.notFound(what: "task \(context.parameter("key"))")
        }
    }

    /// Runs `change`, a PATCH or DELETE of task `key`, under the request's preconditions (RFC
    /// 9110 §13.1.1-2), which become the version the change expects: nil without either header
    /// (or with `If-Match: *` alone). `If-Match` naming one version expects it; naming several,
    /// the task's current version when it is among them (read first); naming none, version 0,
    /// which no task has. `If-None-Match` (compared weakly; `*` matches the task, which exists)
    /// that names the current version expects 0 too; one that does not expects that version, so
    /// a change committed since the read is refused. A change expecting 0 is refused by the
    /// service as stale, after its own checks (a viewer's PATCH is 403, not 412), with the
    /// current `ETag`; when `If-None-Match` was why, the problem says so.
    func conditionally(
        _ context: RouteContext, of key: TaskKey, as actor: UserRef, _ change: (_ expectedVersion: Int64?) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        let matching = try context.request.header("if-match").map { try ETag.condition(in: $0, field: "If-Match") }
        guard let noneMatching = context.request.header("if-none-match") else {
            guard case .versions(let versions)? = matching else { return try await change(nil) }
            guard versions.count > 1 else { return try await change(versions.first ?? 0) }
            let current = try await service.task(key, as: actor).version
            return try await change(versions.contains(current) ? current : 0)
        }
        let current = try await service.task(key, as: actor).version
        guard !DigestETag.matches(noneMatching, ETag.of(current)) else {
            do {
                return try await change(0)
            } catch TaskError.conflict(let what, let version) where version == current {
                let problem = ProblemDocument(
                    .conflict,
                    detail:
                        "\(what) is at version \(version), which If-None-Match: \(noneMatching) names; nothing was changed: send If-Match: \(ETag.of(version)) to change this version",
                    what: what, currentVersion: version)
                return ServerProblems.response(problem, headers: [("ETag", ETag.of(version))])
            }
        }
        guard case .versions(let versions)? = matching else { return try await change(current) }
        return try await change(versions.contains(current) ? current : 0)
    }

    /// Runs `create`, a POST, under the request's preconditions (RFC 9110 §13.1.1-2), judged on
    /// the POST's target: the collection it adds to, which exists while the route answers at all
    /// (the caller's tokens, their teams, an existing team's tasks or imports). They are judged
    /// after the route's checks of its body and `access`, its access check (so an outsider still
    /// gets 404 and a viewer 403, whatever the condition), and before anything is made: false,
    /// it is 412 `precondition_failed` with the collection's current `ETag`, and nothing is
    /// made. The collection's tag is the weak one its `GET` answers (`shown`; nil: it has none,
    /// the imports, so only `*` matches it), so `If-Match: *` holds and any tag is false (the
    /// strong comparison), `If-None-Match: *` is false, and a list is false when it names the
    /// tag. Nothing is read without a precondition, nor for `If-Match` alone: the tag decides
    /// nothing there, and only a refusal reads it, to name it. A 412 is a refusal like any
    /// other to `idempotent`: not kept, so the key is free for a corrected retry.
    func creating(
        _ context: RouteContext, access: () async throws -> Void = {}, shown: (() async throws -> HTTPResponse)?,
        _ create: () async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        let preconditions = try Preconditions(context.request)
        guard !preconditions.isEmpty else { return try await create() }
        try await access()
        if preconditions.ifNoneMatch == nil, preconditions.ifMatchHolds(exists: true, tag: nil) { return try await create() }
        let tag: String? = if let shown { DigestETag.of(try await shown().bytes) } else { nil }
        guard preconditions.holdForChange(exists: true, tag: tag) else {
            return preconditions.refusal(context.request, what: try resource(context), tag: tag, exists: true)
        }
        return try await create()
    }

    /// Runs a POST or a DELETE once per `Idempotency-Key`: a retry with the same body gets the first answer,
    /// whichever spelling of the resource's path it takes (`resource`). `query` is the query as
    /// the route reads it, spelled one way (none for a route that reads none): a retry that
    /// differs only in what the route ignores or reads alike is the same request.
    func idempotent(
        _ context: RouteContext, query: [(name: String, value: String)] = [], keepsBody: Bool = true,
        _ body: () async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        guard let key = context.request.header("idempotency-key"), let caller = context.caller else { return try await body() }
        let fingerprint = IdempotencyCache.fingerprint(context.request, resource: try resource(context), query: query)
        return try await idempotency.run(key: key, user: caller.user.id, fingerprint: fingerprint, keepsBody: keepsBody, body)
    }

    /// The resource `context`'s path names, spelled one way: its route's pattern with each
    /// parameter as the handlers read it (a team key trimmed and upper-cased, a task key as
    /// `CORE-7`; any other as sent, its `%` and `/` escaped), so that the router's aliases (a
    /// key in any case or padded, escaped letters, a trailing slash) are one resource. A key
    /// that names nothing is the handlers' own 404.
    func resource(_ context: RouteContext) throws -> String {
        let segments = try context.pattern.split(separator: "/").map { segment -> String in
            switch segment {
            case "{team}": return try teamKey(context).rawValue
            case "{key}": return try taskKey(context).description
            case _ where segment.hasPrefix("{"):
                let value = context.parameter(String(segment.dropFirst().dropLast()))
                return value.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "/", with: "%2F")
            default: return String(segment)
            }
        }
        return "/" + segments.joined(separator: "/")
    }
}
