import APITokens
import Foundation
import Hashing
import Synchronization
import TaskCore
import TaskbaseWire

/// Who a request acts as: the token's user.
public struct Caller: Sendable {
    /// The user, enabled when the request was authenticated.
    public let user: User
    /// The API token it came with; nil when an identity provider's token authenticated it.
    public let token: APIToken?
    /// What the access log shows of the credential: the API token's prefix, or `jwt:` and the
    /// first digits of the identity token's SHA-256.
    public let credential: String
    /// When an identity provider's token stops being accepted (an API token says its own).
    let identityExpiry: Date?
    /// When an identity provider's token must be checked against the provider's keys again
    /// before it is taken from a cache.
    let identityRecheck: Date?

    /// A caller authenticated by API token `token`.
    init(user: User, token: APIToken) {
        self.user = user
        self.token = token
        credential = token.prefix
        identityExpiry = nil
        identityRecheck = nil
    }

    /// A caller authenticated by an identity provider's token, labelled `credential`, accepted
    /// until `expiresAt` and checked again from `recheckAt`.
    init(user: User, identityToken credential: String, expiresAt: Date, recheckAt: Date) {
        self.user = user
        token = nil
        self.credential = credential
        identityExpiry = expiresAt
        identityRecheck = recheckAt
    }

    /// Whether its credential still authenticates at `time` (a revocation or a disabled user
    /// reaches the cache through the doorbell, not through this).
    func isActive(at time: Date) -> Bool {
        if let token { token.isActive(at: time) } else { time < (identityExpiry ?? .distantPast) }
    }
}

/// Why a request is not authenticated: 401 with the challenge.
struct AuthenticationRefusal: Error {
    /// The 401 response.
    let response: HTTPResponse
    /// The presented token's prefix, for the log (never the token).
    let tokenPrefix: String?
}

/// Turns a request's `Authorization` header into a caller.
protocol RequestAuthenticator: Sendable {
    /// The caller, or the 401 (or 503) to answer.
    func authenticate(_ request: HTTPRequest) async -> Result<Caller, AuthenticationRefusal>
}

/// Verifies bearer tokens against the service, caching what it verified so that the hot path
/// costs no database round trip. The cache is trusted only while the invalidation doorbell
/// (`TaskService.tokenInvalidations`, NOTIFY across processes) is connected: each ring, and each
/// reconnection, empties it. Expiry is checked on every use; use is recorded once a minute.
///
/// A lookup that was under way when the cache was emptied must not put back what it read: the
/// token may have been revoked after that read, and the ring that said so has passed. Each
/// emptying starts a new generation; a lookup keeps its result only in the generation it began in.
///
/// Anyone holding the runtime login can ring the doorbell, as often as they like, so a ring must
/// cost little: the lookups of one token that are under way at once in one generation are one
/// (`lookUp`), so a ring costs at most one lookup per distinct token its streams hold, and the
/// rings are acted on as `ringPace` allows (past its burst, a real revocation waits 500 ms at most).
public final class TokenVerifier: Sendable {
    /// A token's hash as the cache's key: hashed as one run of bytes, not byte by byte as an
    /// array of them is (32 calls into the hasher on every request).
    private struct CacheKey: Hashable {
        let bytes: [UInt8]

        init(_ bytes: [UInt8]) {
            self.bytes = bytes
        }

        func hash(into hasher: inout Hasher) {
            bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }

    private struct Cache {
        var entries: [CacheKey: Caller] = [:]
        var trusted = false
        var generation: UInt64 = 0
        /// The lookups under way, by token hash, each with the generation it began in.
        var lookups: [CacheKey: (generation: UInt64, task: Task<Caller?, any Error>)] = [:]

        /// The lookup of `hash` begun in this generation and still under way, if any.
        func lookup(of hash: CacheKey) -> Task<Caller?, any Error>? {
            lookups[hash].flatMap { $0.generation == generation ? $0.task : nil }
        }

        /// Empties the cache and starts a new generation.
        mutating func clear(trusted: Bool) {
            entries = [:]
            self.trusted = trusted
            generation &+= 1
        }
    }

    let service: TaskService
    let secrets: TokenSecrets
    /// The identity provider whose tokens are accepted too, when one is configured.
    let identity: IdentityTokenVerifier?
    private let cache = Mutex(Cache())
    private let doorbell = Mutex<Task<Void, Never>?>(nil)
    private let listeners = Mutex<[@Sendable () -> Void]>([])
    /// A long-lived response watching its credential (`watch`): what to run once it stops
    /// authenticating.
    private struct Watcher {
        let secret: String
        let revoked: @Sendable () -> Void
    }
    /// The responses watching their credential, checked together on every ring by one task
    /// (`checkWatchers`), not a task each: an idle event stream costs no task of its own here.
    private let watchers = Mutex<(next: Int, entries: [Int: Watcher])>((0, [:]))
    /// Wakes the task that checks the watchers; rings coalesce while it checks.
    private let watcherRings = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    private let watcherCheck = Mutex<Task<Void, Never>?>(nil)
    /// The most verified tokens held; more empties the cache.
    let capacity = 10_000
    /// How often the doorbell's rings are acted on: a burst of ten at once (a real revocation is
    /// never held back, so a stream is cut before an event made after its token's revocation
    /// reaches it), then one per 500 ms, so a flood of forged rings empties the cache and wakes
    /// the watchers at most that often, and a real ring in it waits 500 ms at most.
    static let ringPace = RingPace(spacing: .milliseconds(500), burst: 10)

    /// Called between a lookup's read and its caching; tests widen that window with it.
    let afterLookup: (@Sendable () async -> Void)?
    /// The failed lookups each client address may cause (`APIOptions.authFailureLimit`).
    let failures: RateLimiter<PeerAddress>?
    /// Whose `X-Forwarded-For` names the client address charged (`APIOptions.trustedProxies`).
    let proxies: TrustedProxies

    /// A verifier over `service`, hashing with `secrets`, allowing each client address
    /// `failureLimit` failed lookups (nil: any number), the address behind `proxies` when a
    /// request comes through one of them.
    /// With `identity`, an identity provider's tokens are accepted beside API tokens.
    public convenience init(
        service: TaskService, secrets: TokenSecrets, failureLimit: RateLimit? = nil, proxies: TrustedProxies = .none,
        identity: IdentityTokenVerifier? = nil
    ) {
        self.init(service: service, secrets: secrets, failureLimit: failureLimit, proxies: proxies, identity: identity, afterLookup: nil)
    }

    init(
        service: TaskService, secrets: TokenSecrets, failureLimit: RateLimit? = nil, proxies: TrustedProxies = .none,
        identity: IdentityTokenVerifier? = nil, afterLookup: (@Sendable () async -> Void)?
    ) {
        self.service = service
        self.secrets = secrets
        self.identity = identity
        self.afterLookup = afterLookup
        self.proxies = proxies
        failures = failureLimit.map { RateLimiter($0) }
    }

    /// Starts listening for invalidations; until it is connected the cache is bypassed.
    public func start() {
        let task = Task { [weak self] in
            while !Task.isCancelled {
                guard let self else { return }
                do {
                    let rings = try await self.service.tokenInvalidations()
                    self.cache.withLock { $0.clear(trusted: true) }
                    self.ring()
                    for try await _ in rings.paced(Self.ringPace) {
                        self.cache.withLock { $0.clear(trusted: true) }
                        self.ring()
                    }
                } catch {}
                self.cache.withLock { $0.clear(trusted: false) }
                try? await Task.sleep(for: .milliseconds(500))
            }
        }
        doorbell.withLock { $0 = task }
    }

    /// Runs `listener` on each ring of the doorbell (a user disabled, enabled or deleted, a
    /// token revoked) and each reconnection, so other per-process caches can forget too.
    func onInvalidation(_ listener: @escaping @Sendable () -> Void) {
        listeners.withLock { $0.append(listener) }
    }

    private func ring() {
        for listener in listeners.withLock({ $0 }) { listener() }
        wakeWatchers()
    }

    private func wakeWatchers() {
        watcherRings.continuation.yield()
    }

    /// Checks every watched credential, on a ring: each distinct one once (at most 16 at a
    /// time), however many responses watch it, and runs the `revoked` of those that no longer
    /// authenticate.
    private func checkWatchers() async {
        let secrets = Set(watchers.withLock { $0.entries.values.map(\.secret) })
        var failed = Set<String>()
        await withTaskGroup(of: (String, Bool).self) { group in
            var waiting = secrets.makeIterator()
            for _ in 0..<16 {
                guard let secret = waiting.next() else { break }
                group.addTask { (secret, await self.stillValid(secret)) }
            }
            for await (secret, valid) in group {
                if !valid { failed.insert(secret) }
                if let next = waiting.next() { group.addTask { (next, await self.stillValid(next)) } }
            }
        }
        if !failed.isEmpty { endWatches { _, watcher in failed.contains(watcher.secret) } }
    }

    /// Ends the watches `selected` picks, running their `revoked`.
    private func endWatches(_ selected: (_ id: Int, _ watcher: Watcher) -> Bool) {
        let ended = watchers.withLock { watchers in
            let ended = watchers.entries.filter { selected($0.key, $0.value) }
            for id in ended.keys { watchers.entries[id] = nil }
            return ended.values
        }
        for watcher in ended { watcher.revoked() }
    }

    /// Runs `revoked` (once) as soon as `secret` stops authenticating, for a response that
    /// outlives its request (an event stream, an export): the credential is checked again at
    /// every ring of the doorbell (a token revoked or a user disabled, in any process), at every
    /// revocation this process makes, and once at the start (for a ring between the request's
    /// authentication and the watch). Waiting for a heartbeat instead let a revoked token's
    /// stream go on receiving events for up to 15 s. The watch ends when what it returns is cancelled.
    func watch(_ secret: String, revoked: @escaping @Sendable () -> Void) -> TokenWatch {
        let id = watchers.withLock { watchers in
            watchers.next += 1
            watchers.entries[watchers.next] = Watcher(secret: secret, revoked: revoked)
            return watchers.next
        }
        watcherCheck.withLock { check in
            guard check == nil else { return }
            let rings = watcherRings.stream
            // Holds the verifier only while it checks; its deinit ends the rings.
            check = Task { [weak self] in
                for await _ in rings {
                    guard let self else { return }
                    await self.checkWatchers()
                }
            }
        }
        // This one alone, at once, for a ring between the request's authentication and now.
        Task { [weak self] in
            guard let self, await !self.stillValid(secret) else { return }
            self.endWatches { watched, _ in watched == id }
        }
        return TokenWatch { [weak self] in _ = self?.watchers.withLock { $0.entries.removeValue(forKey: id) } }
    }

    /// Stops listening.
    public func stop() {
        doorbell.withLock { $0?.cancel() }
        watcherCheck.withLock { $0?.cancel() }
    }

    deinit {
        watcherRings.continuation.finish()
    }

    /// Stops listening, and returns once the listening task has ended, so that nothing of it
    /// still talks to the database: a program that exits while libpq is still making its
    /// connection crashes in libpq's and OpenSSL's cleanup at exit.
    public func stopAndWait() async {
        let task = doorbell.withLock { $0 }
        task?.cancel()
        await task?.value
        let check = watcherCheck.withLock { $0 }
        check?.cancel()
        await check?.value
    }

    /// Whether the cache is in use (the doorbell is connected).
    public var isCaching: Bool { cache.withLock { $0.trusted } }

    /// How many times the cache was emptied (rings, reconnections).
    var generation: UInt64 { cache.withLock { $0.generation } }

    /// The user the token `secret` authenticates, or nil (unknown, expired, revoked, disabled).
    public func verify(_ secret: String) async throws -> Caller? {
        try await verify(secret, from: nil)
    }

    /// Refused before looking a token up: `peer` has had its failed lookups (429).
    struct LookupsExhausted: Error {
        let retryAfter: Int
    }

    /// `verify(_:)` for a request from `peer`. A token not in the cache costs a database
    /// lookup; a well-formed token nobody holds is never cached, so a client inventing them
    /// makes database work as fast as it can send. Each lookup therefore takes one from the
    /// peer's allowance of failures (`failures`) and gives it back when the token was good:
    /// once the allowance is spent, throws `LookupsExhausted` without reading anything.
    func verify(_ secret: String, from peer: PeerAddress?) async throws -> Caller? {
        // A refused identity token is no caller, like an unknown API token: only the database
        // being out of reach throws (which `stillValid` must not read as a refusal).
        guard case .success(let caller) = try await verdict(secret, from: peer) else { return nil }
        return caller
    }

    /// `verify(_:from:)` with the reason an identity token was refused (an API token's refusal
    /// says nothing more: unknown, expired, revoked and disabled look alike).
    func verdict(_ secret: String, from peer: PeerAddress?) async throws -> Result<Caller?, IdentityTokenRefusal> {
        // Both kinds share one cache, keyed by a hash of the token: an API token's keyed hash
        // (what the database stores), an identity token's SHA-256.
        let identityToken = identity != nil && IdentityProvider.looksLikeToken(secret)
        guard identityToken || TokenSecrets.looksLikeToken(secret) else { return .success(nil) }
        let hash = CacheKey(identityToken ? SHA256.digest(of: secret.utf8) : try secrets.keyedHash(of: secret))
        let now = service.clock.now()
        // An identity token held longer than the provider's key age is verified again below,
        // against keys read since: the provider may have withdrawn the key that signed it.
        if let cached = cache.withLock({ $0.trusted ? $0.entries[hash] : nil }), now < (cached.identityRecheck ?? .distantFuture) {
            guard cached.isActive(at: now) else { return .success(nil) }
            recordUse(cached, hash: hash, at: now)
            return .success(cached)
        }
        guard let identity, identityToken else {
            return .success(
                try await lookUp(hash: hash, from: peer) {
                    try await self.service.authenticate(hash: hash.bytes).map { Caller(user: $0.user, token: $0.token) }
                })
        }
        return try await verifyIdentity(secret, hash: hash, with: identity, at: now, from: peer)
    }

    /// An identity provider's token not in the cache: checked by the provider's pins and keys
    /// (no database), then its user looked up by email, who must exist and be enabled, and
    /// cached until it expires or the doorbell rings.
    private func verifyIdentity(
        _ token: String, hash: CacheKey, with identity: IdentityTokenVerifier, at now: Date, from peer: PeerAddress?
    ) async throws -> Result<Caller?, IdentityTokenRefusal> {
        let claims: IdentityClaims
        do {
            claims = try await identity.verify(token, now: now)
        } catch {
            return .failure(error)
        }
        let service = service
        let caller = try await lookUp(hash: hash, from: peer) { () async throws -> Caller? in
            let user: User
            do {
                user = try await service.user(.email(claims.email), as: .email(claims.email))
            } catch let error as TaskError {
                switch error {
                case .notFound, .permissionDenied, .validation: return nil
                default: throw error
                }
            }
            guard !user.isDisabled else { return nil }
            return Caller(user: user, identityToken: IdentityProvider.label(of: token), expiresAt: claims.expiresAt, recheckAt: claims.recheckAt)
        }
        guard let caller else {
            return .failure(
                IdentityTokenRefusal(
                    "the identity token's user (\(claims.email)) has no enabled Taskbase account; an operator adds users with taskctl user add"))
        }
        return .success(caller)
    }

    /// The caller `read` finds for a credential not in the cache (a database lookup, charged to
    /// `peer`'s allowance of failures until it succeeds), cached under `hash`. A lookup of the
    /// same credential begun in this generation and still under way is shared instead, at no
    /// charge: after a ring empties the cache, every request in flight with a token asks for it at once.
    private func lookUp(hash: CacheKey, from peer: PeerAddress?, read: @escaping @Sendable () async throws -> Caller?) async throws -> Caller? {
        if let running = cache.withLock({ $0.lookup(of: hash) }) { return try await running.value }
        var charged: PeerAddress?
        if let failures, let peer {
            // Charged to the client's /64 for IPv6: one host rotating its addresses within it
            // once got a fresh allowance per address.
            if case .refused(let retryAfter) = failures.admit(peer.subscriber) { throw LookupsExhausted(retryAfter: retryAfter) }
            charged = peer.subscriber
        }
        let (lookup, shared) = cache.withLock { cache in
            if let running = cache.lookup(of: hash) { return (running, true) }
            let generation = cache.generation
            let lookup = Task { try await self.lookUp(hash: hash, in: generation, read: read) }
            cache.lookups[hash] = (generation, lookup)
            return (lookup, false)
        }
        do {
            let caller = try await lookup.value
            if let charged, shared || caller != nil { failures?.giveBack(charged) }
            return caller
        } catch {
            if let charged { failures?.giveBack(charged) }
            throw error
        }
    }

    /// One lookup of `hash`, begun in `generation`, which caches its caller if the cache was not
    /// emptied meanwhile.
    private func lookUp(hash: CacheKey, in generation: UInt64, read: @Sendable () async throws -> Caller?) async throws -> Caller? {
        defer {
            cache.withLock { cache in if cache.lookups[hash]?.generation == generation { cache.lookups[hash] = nil } }
        }
        let now = service.clock.now()
        guard let caller = try await read() else { return nil }
        await afterLookup?()
        cache.withLock { cache in
            guard cache.trusted, cache.generation == generation else { return }
            if cache.entries.count >= capacity { cache.entries = [:] }
            cache.entries[hash] = caller
        }
        recordUse(caller, hash: hash, at: now)
        return caller
    }

    /// Empties the cache now, for a change this process made (a revocation): the doorbell tells
    /// every process, but only after a round trip through the database.
    func invalidate() {
        cache.withLock { $0.clear(trusted: $0.trusted) }
        wakeWatchers()
    }

    /// Whether `secret` still authenticates someone, for a response that outlives its request
    /// (an event stream): false once the token is revoked or expired or its user disabled; true
    /// when the database cannot say right now (the stream's own reads then decide).
    func stillValid(_ secret: String) async -> Bool {
        do {
            return try await verify(secret) != nil
        } catch {
            return true
        }
    }

    /// False once `caller`'s token (or identity token) has expired, by the clock; else
    /// `stillValid(_:)` when the cache was emptied (a ring, a revocation here) since the
    /// generation `checked`, which it then moves on; true at no cost otherwise. A stream asks it
    /// before each event, so that an event made after a revocation is not sent while the watch
    /// (`watch`) is still looking the token up, nor one made after the token expired while the
    /// heartbeat that would notice is still to come.
    func stillValid(_ secret: String, of caller: Caller, since checked: inout UInt64) async -> Bool {
        guard caller.isActive(at: service.clock.now()) else { return false }
        let now = generation
        guard now != checked else { return true }
        guard await stillValid(secret) else { return false }
        checked = now
        return true
    }

    private func recordUse(_ caller: Caller, hash: CacheKey, at now: Date) {
        guard let token = caller.token, token.needsUseRecorded(at: now) else { return }
        var used = token
        used.lastUsedAt = now
        cache.withLock { cache in
            if cache.entries[hash] != nil { cache.entries[hash] = Caller(user: caller.user, token: used) }
        }
        let service = service
        Task { try? await service.recordUse(of: token) }
    }
}

extension TokenVerifier: RequestAuthenticator {
    /// What a request's `Authorization` header holds.
    enum Bearer {
        case missing, notBearer
        case secret(String)

        init(of request: HTTPRequest) {
            guard let header = request.header("authorization") else {
                self = .missing
                return
            }
            // `Bearer`, in any case, after any spaces; then a space and the credential,
            // trimmed. Read in place: this runs on every request.
            let text = header.drop(while: { $0 == " " })
            guard let space = text.firstIndex(of: " "), Self.isBearer(text[..<space]) else {
                self = .notBearer
                return
            }
            let secret = text[text.index(after: space)...].trimmingSpaces()
            self = secret.isEmpty ? .notBearer : .secret(secret)
        }

        /// Whether `scheme` is `Bearer`, in any case (RFC 9110 §11.1).
        private static func isBearer(_ scheme: Substring) -> Bool {
            let bytes = scheme.utf8
            guard bytes.count == 6 else { return false }
            var index = bytes.startIndex
            for expected in "bearer".utf8 {
                guard bytes[index] | 0x20 == expected else { return false }
                index = bytes.index(after: index)
            }
            return true
        }

        /// The prefix of the token it carries, checked or not: what the access log shows (for
        /// an identity provider's token, `IdentityProvider.label(of:)`).
        var prefix: String? {
            if case .secret(let secret) = self { Bearer.label(of: secret) } else { nil }
        }

        /// A Taskbase token's prefix (made to be shown); an identity provider's token's
        /// `jwt:` label; anything else, a password sent as a bearer token included, `other:` and
        /// its `CredentialLabel` hash, never a character of it (its first ten were logged).
        static func label(of secret: String) -> String {
            if IdentityProvider.looksLikeToken(secret) { return IdentityProvider.label(of: secret) }
            if TokenSecrets.looksLikeToken(secret) { return TokenSecrets.prefix(of: secret) }
            return CredentialLabel.hashed("other:", secret)
        }
    }

    func authenticate(_ request: HTTPRequest) async -> Result<Caller, AuthenticationRefusal> {
        let secret: String
        switch Bearer(of: request) {
        case .missing:
            return .failure(
                AuthenticationRefusal(response: ServerProblems.unauthorized("this route needs Authorization: Bearer <token>"), tokenPrefix: nil))
        case .notBearer:
            return .failure(
                AuthenticationRefusal(response: ServerProblems.unauthorized("the Authorization header must be Bearer <token>"), tokenPrefix: nil))
        case .secret(let text):
            secret = text
        }
        // What the log shows of a refused token; an accepted one's caller carries its own (an
        // identity token's label is a hash: not made for every request).
        var prefix: String { Bearer.label(of: secret) }
        // A token sent and refused: its challenge says invalid_token (RFC 6750 §3.1).
        func refused(_ detail: String, _ reason: StaticString) -> Result<Caller, AuthenticationRefusal> {
            .failure(AuthenticationRefusal(response: ServerProblems.unauthorized(detail, invalidToken: reason), tokenPrefix: prefix))
        }
        do {
            switch try await verdict(secret, from: proxies.client(of: request)) {
            case .success(let caller?):
                return .success(caller)
            case .success(nil):
                let why: StaticString = "the token is unknown, expired or revoked, or its user is disabled"
                return refused(why.description, why)
            case .failure(let refusal):
                // Its reason stays in the detail: it may quote the token's own header.
                return refused(refusal.description, "the identity token is not accepted; the detail says why")
            }
        } catch let exhausted as LookupsExhausted {
            let problem = ProblemDocument(
                .tooManyRequests,
                detail: "too many unknown, expired or revoked tokens from this address; retry after \(exhausted.retryAfter) s")
            return .failure(
                AuthenticationRefusal(
                    response: ServerProblems.response(problem, headers: [("Retry-After", String(exhausted.retryAfter))]), tokenPrefix: prefix))
        } catch {
            return .failure(AuthenticationRefusal(response: ServerFailures.response(for: error), tokenPrefix: prefix))
        }
    }
}

/// How the access log names a credential it must not show: `kind` and the first 12 hex digits
/// of a SHA-256 salted with this process's random salt. One credential sent again and again has
/// one label in a run's log, but no label can be matched against guesses, as an unsalted hash
/// of a password can.
enum CredentialLabel {
    static func hashed(_ kind: String, _ credential: String) -> String {
        kind + SHA256.hexDigest(of: salt + Array(credential.utf8)).prefix(12)
    }

    private static let salt: [UInt8] = (0..<32).map { _ in UInt8.random(in: .min ... .max) }
}

/// One response's watch of its credential (`TokenVerifier.watch`).
struct TokenWatch: Sendable {
    let end: @Sendable () -> Void

    /// Ends the watch: its `revoked` will not run.
    func cancel() { end() }
}
