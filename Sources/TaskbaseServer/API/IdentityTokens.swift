import CLibCrypto
import Foundation
import Hashing
import PGStore
import Synchronization
import TaskCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An identity provider whose tokens taskserve accepts beside its own API tokens: OpenID
/// Connect ID tokens or OAuth access tokens in JWT form (RFC 7519), signed by the provider with
/// a key it publishes in a JWK set (RFC 7517). Everything a token may say about how to check it
/// is pinned here instead: the issuer, the audience, the algorithms, where the keys come from.
/// The token's user is the Taskbase user whose email `userClaim` names; nobody is provisioned
/// by a token (that stays an operator's act).
public struct IdentityProvider: Sendable {
    /// The signature algorithms taskserve verifies.
    public enum Algorithm: String, Sendable, CaseIterable {
        /// RSASSA-PKCS1-v1_5 with SHA-256, under an RSA key of 2048 bits or more.
        case rs256 = "RS256"
        /// ECDSA on P-256 with SHA-256.
        case es256 = "ES256"
    }

    /// Where the provider's public keys are read: a JWK set in a file, at a URL (https, or
    /// http to this machine only), or at the URL the issuer's discovery document names.
    public enum KeySource: Sendable, CustomStringConvertible {
        case file(String)
        case url(URL)
        /// The `jwks_uri` of the OpenID Connect discovery document at `document`, which must
        /// name `issuer` exactly; read once, at start (see `discovered(from:)`).
        case discovery(issuer: String, document: URL)

        /// A file path, or an `https://` URL (`http://` only to 127.0.0.1, ::1 or localhost).
        public init(parsing text: String) throws(IdentityProviderError) {
            guard text.contains("://") else {
                self = .file(text)
                return
            }
            self = .url(try Self.remote(text, what: "the key set's URL"))
        }

        /// The key set named by the discovery document of `issuer` (OpenID Connect Discovery
        /// 1.0, §4): `issuer` without its trailing slash, then `/.well-known/openid-configuration`.
        /// The issuer must be an `https://` URL (`http://` only to this machine) with no query
        /// or fragment.
        public static func discovered(from issuer: String) throws(IdentityProviderError) -> KeySource {
            let url = try remote(issuer, what: "the issuer")
            guard url.query == nil, url.fragment == nil else {
                throw IdentityProviderError("the issuer \(issuer) has a query or fragment, which an OpenID Connect issuer never has")
            }
            var base = issuer
            while base.hasSuffix("/") { base.removeLast() }
            guard let document = URL(string: base + "/.well-known/openid-configuration") else {
                throw IdentityProviderError("the issuer \(issuer) gives no discovery document's URL")
            }
            return .discovery(issuer: issuer, document: document)
        }

        /// `text`, a URL, as logs and errors may show it: a password in it (`user:password@`)
        /// and the values of its query are `***`, as for connection strings (`PGConfig.mask`).
        static func shown(_ text: String) -> String { PGConfig.mask(text) }

        /// `text` as a URL taskserve will fetch keys from: `https://`, or `http://` to this
        /// machine only (a plain fetch from elsewhere could be answered by anyone on the path).
        static func remote(_ text: String, what: String) throws(IdentityProviderError) -> URL {
            guard let url = URL(string: text), let scheme = url.scheme?.lowercased() else {
                throw IdentityProviderError("\(what) \(shown(text)) cannot be read as a URL")
            }
            let host = url.host?.lowercased() ?? ""
            let local = ["127.0.0.1", "::1", "[::1]", "localhost"].contains(host)
            guard !host.isEmpty, scheme == "https" || (scheme == "http" && local) else {
                throw IdentityProviderError("\(what) must be https:// (http:// only to this machine): \(shown(text))")
            }
            return url
        }

        public var description: String {
            switch self {
            case .file(let path): path
            case .url(let url): Self.shown(url.absoluteString)
            case .discovery(_, let document): Self.shown(document.absoluteString)
            }
        }
    }

    /// The `iss` every token must carry, exactly.
    public var issuer: String
    /// A value the token's `aud` must hold.
    public var audience: String
    /// The algorithms accepted; a token naming another is refused, whatever its key.
    public var algorithms: Set<Algorithm>
    /// Where the signing keys come from.
    public var keys: KeySource
    /// The claim naming the user's email (`email` by default). For `email`, a token whose
    /// `email_verified` is present and not true is refused.
    public var userClaim: String
    /// How far clocks may disagree, for `exp` and `nbf`: a minute.
    public var leeway: TimeInterval = 60
    /// The longest token read (a bearer token is a header; this is far above a real one).
    public var maxTokenBytes = 8_192
    /// The shortest time between two reads of the keys (for a token naming an unknown key id,
    /// or after a read that failed).
    public var reloadInterval: Duration = .seconds(30)
    /// The longest a key set is used before it is read again, in seconds: a key the provider
    /// withdraws stops being accepted within this, and a verified token is checked again
    /// against the keys at least this often. Ten minutes.
    public var maxKeyAge: TimeInterval = 600

    /// A provider with these pins; RS256 only unless told otherwise.
    public init(issuer: String, audience: String, keys: KeySource, algorithms: Set<Algorithm> = [.rs256], userClaim: String = "email") {
        self.issuer = issuer
        self.audience = audience
        self.keys = keys
        self.algorithms = algorithms
        self.userClaim = userClaim
    }

    /// Whether `text` has a JWS compact token's shape: three base64url parts, the first two
    /// not empty. API tokens never have it.
    static func looksLikeToken(_ text: String) -> Bool {
        var dots = 0
        var partLength = 0
        for byte in text.utf8 {
            if byte == UInt8(ascii: ".") {
                if partLength == 0 { return false }
                dots += 1
                partLength = 0
            } else if Base64URL.isAlphabet(byte) {
                partLength += 1
            } else {
                return false
            }
        }
        return dots == 2 && partLength > 0
    }

    /// What the access log shows of an identity token: `jwt:` and its `CredentialLabel` hash,
    /// the same for every request that carries it in one run and nothing of the token itself.
    /// Salted, since anything of three dotted parts looks like a token, a passphrase
    /// `correct.horse.battery` included.
    static func label(of token: String) -> String {
        CredentialLabel.hashed("jwt:", token)
    }
}

/// A configuration or key set that cannot be used; says what and what to do.
public struct IdentityProviderError: Error, CustomStringConvertible {
    public let description: String
    /// Whether the key set's URL could not be reached (rather than read and found wanting).
    public let unreachable: Bool
    init(_ description: String, unreachable: Bool = false) {
        self.description = description
        self.unreachable = unreachable
    }
}

/// Why an identity token was refused: said in the 401's detail (none of it is secret).
struct IdentityTokenRefusal: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// What a verified identity token says.
struct IdentityClaims: Sendable, Equatable {
    /// The user's email, from the configured claim.
    var email: String
    /// When it stops being accepted (`exp` plus the leeway).
    var expiresAt: Date
    /// When a cache must check it against the keys again (the provider may have withdrawn its
    /// key by then): `maxKeyAge` after it was verified, or its expiry if sooner.
    var recheckAt: Date
}

/// One public key of the provider's set, ready for libcrypto.
final class SigningKey: @unchecked Sendable {
    let id: String
    let algorithm: IdentityProvider.Algorithm
    /// The JWK's own `alg`, when it names one.
    let pinnedAlgorithm: String?
    private let key: OpaquePointer

    init(id: String, algorithm: IdentityProvider.Algorithm, pinnedAlgorithm: String?, key: OpaquePointer) {
        self.id = id
        self.algorithm = algorithm
        self.pinnedAlgorithm = pinnedAlgorithm
        self.key = key
    }

    deinit { EVP_PKEY_free(key) }

    /// Whether `signature` signs `data` (libcrypto does the verifying).
    func verifies(_ signature: [UInt8], over data: [UInt8]) -> Bool {
        data.withUnsafeBufferPointer { data in
            signature.withUnsafeBufferPointer { signature in
                taskbase_verify_sha256(key, algorithm == .es256 ? 1 : 0, data.baseAddress, data.count, signature.baseAddress, signature.count) == 1
            }
        }
    }

    /// The signing keys of a JWK set (`{"keys": [...]}`): RSA keys for RS256, P-256 keys for
    /// ES256, each with a `kid`; keys for encryption (`use` other than `sig`) and of other
    /// kinds are left out. A set with no usable key is an error.
    static func set(from data: Data, source: String) throws(IdentityProviderError) -> [SigningKey] {
        guard case .array(let entries)? = JSONValue.object(from: Array(data))?["keys"] else {
            throw IdentityProviderError("\(source) is not a JWK set: a JSON object with a \"keys\" array was expected")
        }
        var keys: [SigningKey] = []
        for case .object(let entry) in entries {
            guard let id = entry["kid"]?.string, !id.isEmpty, entry["use"].map({ $0 == .string("sig") }) ?? true else { continue }
            let pinned = entry["alg"]?.string
            func bytes(_ member: String) -> [UInt8]? { entry[member]?.string.flatMap(Base64URL.decode) }
            switch entry["kty"]?.string {
            case "RSA":
                guard let n = bytes("n"), let e = bytes("e"),
                    let key = n.withUnsafeBufferPointer({ n in
                        e.withUnsafeBufferPointer { e in taskbase_rsa_public_key(n.baseAddress, n.count, e.baseAddress, e.count) }
                    })
                else { continue }
                keys.append(SigningKey(id: id, algorithm: .rs256, pinnedAlgorithm: pinned, key: key))
            case "EC":
                guard entry["crv"]?.string == "P-256", let x = bytes("x"), let y = bytes("y"), x.count == 32, y.count == 32,
                    let key = x.withUnsafeBufferPointer({ x in
                        y.withUnsafeBufferPointer { y in taskbase_p256_public_key(x.baseAddress, y.baseAddress) }
                    })
                else { continue }
                keys.append(SigningKey(id: id, algorithm: .es256, pinnedAlgorithm: pinned, key: key))
            default:
                continue
            }
        }
        guard !keys.isEmpty else {
            throw IdentityProviderError(
                "\(source) holds no signing key taskserve can use (RSA of 2048 bits or more, or EC P-256, each with a kid)")
        }
        return keys
    }
}

/// Verifies identity tokens against a provider's pins and keys. The keys are read at start and
/// again when a token names a key id not among them (the provider rotated its keys), at most
/// once per `IdentityProvider.reloadInterval`.
public final class IdentityTokenVerifier: Sendable {
    /// The pins it checks tokens by.
    public let provider: IdentityProvider
    /// The algorithms the provider's discovery document says it signs ID tokens with
    /// (`id_token_signing_alg_values_supported`); nil when no document was read or it lists none.
    public let advertisedAlgorithms: [String]?
    private struct Keys {
        var keys: [SigningKey]
        /// When the set was last read.
        var readAt: ContinuousClock.Instant
        /// When a read was last tried, whether or not it succeeded.
        var triedAt: ContinuousClock.Instant
        var reloading: Task<Void, Never>?
    }
    private let state: Mutex<Keys>

    private init(provider: IdentityProvider, keys: [SigningKey], advertisedAlgorithms: [String]?) {
        self.provider = provider
        self.advertisedAlgorithms = advertisedAlgorithms
        let now = ContinuousClock.now
        state = Mutex(Keys(keys: keys, readAt: now, triedAt: now))
    }

    /// A verifier with the provider's keys read, or the error saying why they cannot be.
    public static func start(_ provider: IdentityProvider) async throws(IdentityProviderError) -> IdentityTokenVerifier {
        guard !provider.issuer.isEmpty, !provider.audience.isEmpty, !provider.algorithms.isEmpty, !provider.userClaim.isEmpty else {
            throw IdentityProviderError("an identity provider needs an issuer, an audience, at least one algorithm and a user claim")
        }
        var provider = provider
        let discovered = try await resolve(provider.keys)
        provider.keys = discovered.keys
        return IdentityTokenVerifier(provider: provider, keys: try await load(provider.keys), advertisedAlgorithms: discovered.algorithms)
    }

    /// Why every ID token of a reachable provider may be refused, for the start's log: its
    /// discovery document lists the algorithms it signs them with, and none is accepted here.
    public var warning: String? {
        guard let advertised = advertisedAlgorithms,
            !advertised.contains(where: { IdentityProvider.Algorithm(rawValue: $0).map(provider.algorithms.contains) ?? false })
        else { return nil }
        let accepted = provider.algorithms.map(\.rawValue).sorted().joined(separator: ",")
        return "the identity provider signs ID tokens with \(advertised.joined(separator: ", ")) (id_token_signing_alg_values_supported), "
            + "none of which --oidc-algorithms \(accepted) accepts: its ID tokens will be refused"
    }

    /// The key set at `source`.
    static func load(_ source: IdentityProvider.KeySource) async throws(IdentityProviderError) -> [SigningKey] {
        let data: Data
        switch source {
        case .file(let path):
            guard let read = FileManager.default.contents(atPath: path) else {
                throw IdentityProviderError("cannot read the key set \(path): no such file, or not readable")
            }
            data = read
        case .url(let url):
            data = try await fetch(url, what: "the key set")
        case .discovery:
            return try await load(resolve(source).keys)
        }
        return try SigningKey.set(from: data, source: source.description)
    }

    /// `source`, with a discovery document read for the key set's URL it names; other
    /// sources as they are. The document must name the configured issuer exactly (a provider
    /// serving another's document is refused), and its `jwks_uri` must be an `https://` URL
    /// (`http://` only to this machine): never a path on this machine. With the key set, the
    /// algorithms the document says the provider signs ID tokens with, when it lists any.
    static func resolve(
        _ source: IdentityProvider.KeySource
    ) async throws(IdentityProviderError) -> (keys: IdentityProvider.KeySource, algorithms: [String]?) {
        guard case .discovery(let issuer, let document) = source else { return (source, nil) }
        let origin = "the discovery document at \(IdentityProvider.KeySource.shown(document.absoluteString))"
        guard let members = JSONValue.object(from: Array(try await fetch(document, what: "the discovery document"))) else {
            throw IdentityProviderError("\(origin) is not a JSON object")
        }
        guard let named = members["issuer"]?.string else { throw IdentityProviderError("\(origin) names no issuer") }
        guard named == issuer else {
            throw IdentityProviderError(
                "\(origin) names the issuer \(named), not \(issuer): give --oidc-issuer exactly as the provider writes it (its tokens' iss)")
        }
        guard let keys = members["jwks_uri"]?.string, !keys.isEmpty else { throw IdentityProviderError("\(origin) names no key set (jwks_uri)") }
        guard keys.contains("://") else { throw IdentityProviderError("\(origin) names a key set that is not a URL: \(keys)") }
        let url = try IdentityProvider.KeySource.remote(keys, what: "the key set's URL \(origin) names")
        var algorithms: [String]?
        if case .array(let listed) = members["id_token_signing_alg_values_supported"] {
            let names = listed.compactMap(\.string)
            if !names.isEmpty { algorithms = names }
        }
        return (.url(url), algorithms)
    }

    /// The most a discovery document or a key set may hold: real ones are a few kilobytes,
    /// and one read again every few minutes must not grow the server without bound.
    static let maxDocumentBytes = 1 << 20
    /// The longest reading one may take, however steadily it arrives: requests that need a
    /// key wait for the read.
    static let maxFetchTime: Duration = .seconds(30)

    /// The body of a `200` answer to a GET of `url`, read up to `maxBytes` and for at most
    /// `limit`; an error saying what could not be read (marked unreachable unless the answer
    /// was too large) otherwise.
    static func fetch(
        _ url: URL, what: String, maxBytes: Int = maxDocumentBytes, within limit: Duration = maxFetchTime
    ) async throws(IdentityProviderError) -> Data {
        let shown = IdentityProvider.KeySource.shown(url.absoluteString)
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: 10)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        switch await BoundedFetch.get(request, maxBytes: maxBytes, within: limit) {
        case .answered(200, let body):
            return body
        case .answered(let status, _):
            throw IdentityProviderError("\(what) at \(shown) answered \(status), not 200", unreachable: true)
        case .tooLarge:
            throw IdentityProviderError("\(what) at \(shown) is larger than \(maxBytes) bytes, far more than any real one")
        case .tooSlow:
            throw IdentityProviderError("\(what) at \(shown) took longer than \(limit) to read", unreachable: true)
        case .failed(let error):
            throw IdentityProviderError(
                "cannot fetch \(what) at \(shown): \(IdentityProvider.KeySource.shown(error.localizedDescription))", unreachable: true)
        }
    }

    /// The claims of `token` at `now`, or why it is refused.
    func verify(_ token: String, now: Date) async throws(IdentityTokenRefusal) -> IdentityClaims {
        guard token.utf8.count <= provider.maxTokenBytes else {
            throw IdentityTokenRefusal("the identity token is longer than \(provider.maxTokenBytes) bytes")
        }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0]), let payloadBytes = Base64URL.decode(parts[1]),
            let signature = Base64URL.decode(parts[2]), let header = JSONValue.object(from: headerBytes),
            let claims = JSONValue.object(from: payloadBytes)
        else { throw IdentityTokenRefusal("the identity token is not a signed JWT (three base64url parts, JSON header and claims)") }
        // The header says which key, never how to check: the algorithm must be one this server
        // was told to accept, and match the key's own kind.
        guard let named = header["alg"]?.string, let algorithm = IdentityProvider.Algorithm(rawValue: named),
            provider.algorithms.contains(algorithm)
        else {
            let accepted = provider.algorithms.map(\.rawValue).sorted().joined(separator: ", ")
            let named = header["alg"]?.string.map { "\"\($0)\"" } ?? "(none)"
            throw IdentityTokenRefusal("the identity token's algorithm \(named) is not accepted (\(accepted))")
        }
        guard header["crit"] == nil else {
            throw IdentityTokenRefusal("the identity token names critical header extensions, which are not supported")
        }
        guard let keyID = header["kid"]?.string, !keyID.isEmpty else { throw IdentityTokenRefusal("the identity token names no key (kid)") }
        guard let key = await key(keyID, for: algorithm) else {
            throw IdentityTokenRefusal("the identity token's key \(keyID) is not among the provider's \(algorithm.rawValue) keys")
        }
        let signed = Array(token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        guard key.verifies(signature, over: signed) else { throw IdentityTokenRefusal("the identity token's signature does not verify") }
        // Signed by the provider: now its claims count.
        guard claims["iss"]?.string == provider.issuer else { throw IdentityTokenRefusal("the identity token's issuer is not \(provider.issuer)") }
        let audiences: [String] =
            switch claims["aud"] {
            case .string(let one): [one]
            case .array(let many): many.compactMap(\.string)
            default: []
            }
        guard audiences.contains(provider.audience) else { throw IdentityTokenRefusal("the identity token is not for audience \(provider.audience)") }
        guard case .number(let expiry) = claims["exp"] else { throw IdentityTokenRefusal("the identity token has no expiry (exp)") }
        let expiresAt = Date(timeIntervalSince1970: expiry + provider.leeway)
        guard now < expiresAt else { throw IdentityTokenRefusal("the identity token has expired") }
        if let notBefore = claims["nbf"] {
            guard case .number(let seconds) = notBefore else { throw IdentityTokenRefusal("the identity token's nbf is not a number") }
            guard now.timeIntervalSince1970 + provider.leeway >= seconds else {
                throw IdentityTokenRefusal("the identity token is not valid yet (nbf)")
            }
        }
        guard let email = claims[provider.userClaim]?.string, !email.isEmpty else {
            throw IdentityTokenRefusal("the identity token has no \(provider.userClaim) claim naming the user")
        }
        if provider.userClaim == "email", let verified = claims["email_verified"] {
            guard verified == .bool(true) || verified == .string("true") else {
                throw IdentityTokenRefusal("the identity token's email is not verified (email_verified)")
            }
        }
        return IdentityClaims(email: email, expiresAt: expiresAt, recheckAt: min(expiresAt, now.addingTimeInterval(provider.maxKeyAge)))
    }

    /// The key `id` for `algorithm`. The set is read again when it holds no such key (the
    /// provider rotated its keys) and when it is older than `maxKeyAge` (the provider may have
    /// withdrawn a key), at most once per `reloadInterval`; while the provider cannot be
    /// reached, the set read last stays in use.
    private func key(_ id: String, for algorithm: IdentityProvider.Algorithm) async -> SigningKey? {
        func find(_ keys: [SigningKey]) -> SigningKey? {
            keys.first { $0.id == id && $0.algorithm == algorithm && ($0.pinnedAlgorithm == nil || $0.pinnedAlgorithm == algorithm.rawValue) }
        }
        let (found, reload) = state.withLock { state -> (SigningKey?, Task<Void, Never>?) in
            let now = ContinuousClock.now
            let found = find(state.keys)
            if found != nil, now - state.readAt < .seconds(provider.maxKeyAge) { return (found, nil) }
            if let running = state.reloading { return (found, running) }
            if now - state.triedAt < provider.reloadInterval { return (found, nil) }
            let source = provider.keys
            let task = Task { [self] in
                let keys = try? await Self.load(source)
                self.state.withLock { current in
                    let now = ContinuousClock.now
                    if let keys {
                        current.keys = keys
                        current.readAt = now
                    }
                    current.triedAt = now
                    current.reloading = nil
                }
            }
            state.reloading = task
            return (found, task)
        }
        guard let reload else { return found }
        await reload.value
        return state.withLock { find($0.keys) }
    }
}

/// One GET of a discovery document or key set: no cache, no cookies, a redirect followed only
/// to a URL it could have been named by (`https://`, or `http://` to this machine, so an https
/// provider cannot be walked down to plain HTTP), and the body read only up to a cap and a
/// time limit: past either the transfer is cancelled, not read to its end.
private final class BoundedFetch: NSObject, URLSessionDataDelegate, Sendable {
    enum Outcome: Sendable {
        case answered(status: Int, body: Data)
        case tooLarge, tooSlow
        case failed(any Error)
    }

    private let maxBytes: Int
    private let state = Mutex<(body: Data, stopped: Outcome?, done: CheckedContinuation<Outcome, Never>?)>((Data(), nil, nil))

    private init(maxBytes: Int) {
        self.maxBytes = maxBytes
    }

    static func get(_ request: URLRequest, maxBytes: Int, within limit: Duration) async -> Outcome {
        let fetch = BoundedFetch(maxBytes: maxBytes)
        // A session of its own, so the delegate is this fetch's; invalidated, it lets go of it.
        let session = URLSession(configuration: .ephemeral, delegate: fetch, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: request)
        let timer = Task {
            try await Task.sleep(for: limit)
            fetch.stop(task, .tooSlow)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            fetch.state.withLock { $0.done = continuation }
            task.resume()
        }
    }

    /// Cancels `task`, to end as `outcome` (the first reason given wins), and answers the caller
    /// now: URLSession may take its time to report the cancelled task complete (seconds, on a
    /// loaded machine), and the time limit is the caller's, not the session's.
    private func stop(_ task: URLSessionTask, _ outcome: Outcome) {
        let (reason, done) = state.withLock { state -> (Outcome, CheckedContinuation<Outcome, Never>?) in
            let reason = state.stopped ?? outcome
            state.stopped = reason
            defer { state.done = nil }
            return (reason, state.done)
        }
        task.cancel()
        done?.resume(returning: reason)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        let allowed = request.url.map { (try? IdentityProvider.KeySource.remote($0.absoluteString, what: "")) != nil } ?? false
        completionHandler(allowed ? request : nil)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let over = state.withLock { state in
            state.body.append(data)
            return state.body.count > maxBytes
        }
        if over { stop(dataTask, .tooLarge) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (outcome, done) = state.withLock { state -> (Outcome, CheckedContinuation<Outcome, Never>?) in
            let status = (task.response as? HTTPURLResponse)?.statusCode ?? 0
            let outcome = state.stopped ?? error.map { .failed($0) } ?? .answered(status: status, body: state.body)
            defer { state.done = nil }
            return (outcome, state.done)
        }
        done?.resume(returning: outcome)
    }
}

/// A JSON value as a token's header and claims hold them, read by JSONDecoder (which keeps
/// `true` from passing for a number, and a number for `true`).
enum JSONValue: Decodable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    var string: String? {
        if case .string(let value) = self { value } else { nil }
    }

    /// `bytes` read as a JSON object; nil when they are not one.
    static func object(from bytes: [UInt8]) -> [String: JSONValue]? {
        guard case .object(let members)? = try? JSONDecoder().decode(JSONValue.self, from: Data(bytes)) else { return nil }
        return members
    }
}
