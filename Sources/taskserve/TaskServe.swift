import APITokens
import CommandLineToolkit
import Foundation
import PGStore
import TaskCore
import TaskbaseCommandLine
import TaskbaseServer
import TaskbaseWire

/// The taskserve program: Taskbase's HTTP/JSON API over PostgreSQL, acting for whoever's API
/// token a request carries.
@main
enum TaskServe {
    static let version = "taskserve 0.1.0"

    static func main() async {
        await CommandRunner.main { command }
    }

    /// The whole command line: one command, no subcommands.
    static let command = Command(
        "taskserve",
        abstract: "Serve Taskbase's HTTP/JSON API (see docs/api.md).",
        discussion: """
            Every request acts as the user of its API token (Authorization: Bearer <token>; make one \
            with taskctl token create EMAIL), or of an identity provider's JWT when --oidc-issuer names one. One JSON access-log line per request goes to stderr. \
            SIGTERM, SIGHUP or Ctrl-C stops gracefully: no new connections, event streams ended, requests \
            in flight answered, exit 0.

            Connection: DATABASE_URL, else the PG* variables; .env fills in what the environment does \
            not set. Tokens are hashed under TASKBASE_TOKEN_KEY (set the same value for taskctl). \
            A database never migrated is refused at start; one whose schema is older than this \
            program is served, /readyz answering 503 until taskmigrate up has run. It warns of \
            session defaults its database login gave itself and large objects it owns, which outlive \
            a new password (docs/operations.md). --check checks all of this and exits without listening. \
            Exit codes: 0 stopped (or checked), 2 usage, 3 cannot connect or listen, or no schema; \
            a --check stopped by a signal, 128 + the signal. With --workers, a worker that exits \
            while the others serve stops them all, and its code is the supervisor's (1 when it was killed).
            """,
        version: version,
        options: [
            Option(
                "listen", valueName: "HOST:PORT",
                help: "Where to listen: an IPv4 address, or IPv6 in brackets ([::1]:8080, IPv6 only); port 0 picks a free one.",
                default: "127.0.0.1:8080", environment: "TASKBASE_HTTP_ADDR"),
            Option(
                "max-connections", valueName: "N", help: "Connections served at once.", type: .integer,
                default: "1024", environment: "TASKBASE_HTTP_MAX_CONNECTIONS"),
            Option(
                "max-body", valueName: "BYTES", help: "The largest request body (413 beyond).", type: .integer,
                default: "1048576", environment: "TASKBASE_HTTP_MAX_BODY"),
            Option(
                "max-import-body", valueName: "BYTES", help: "The largest CSV body of POST /v1/teams/{team}/imports (413 beyond).",
                type: .integer, default: "67108864", environment: "TASKBASE_HTTP_MAX_IMPORT_BODY"),
            Option(
                "max-uploads", valueName: "N",
                help:
                    "Import bodies received at once, each spooled to a temporary file once its token is verified (401 before, holding no slot); 503 beyond.",
                type: .integer, default: "8", environment: "TASKBASE_HTTP_MAX_UPLOADS"),
            Option(
                "max-uploads-per-user", valueName: "N",
                help: "Of those, the most one user may send at once, so that one valid token cannot take every slot; 503 beyond.",
                type: .integer, default: "2", environment: "TASKBASE_HTTP_MAX_UPLOADS_PER_USER"),
            Option(
                "max-connections-per-address", valueName: "N",
                help: "Connections from one client address at once (0: no limit; behind a proxy every client shares its address).",
                type: .integer, default: "0", environment: "TASKBASE_HTTP_MAX_CONNECTIONS_PER_ADDRESS"),
            Option(
                "idle-timeout", valueName: "SECONDS",
                help:
                    "Close a connection that sends nothing for this long (a client trickling bytes is not idle; see --max-connections-per-address).",
                type: .integer, default: "30", environment: "TASKBASE_HTTP_IDLE_TIMEOUT"),
            Option(
                "pool-size", valueName: "N", help: "Database connections (2 or more).", type: .integer, default: "16",
                environment: "TASKBASE_POOL_SIZE"),
            Option(
                "pool-timeout", valueName: "MS", help: "How long a request waits for a database connection before 503.", type: .integer,
                default: "2000", environment: "TASKBASE_POOL_TIMEOUT_MS"),
            Option(
                "max-imports", valueName: "N",
                help:
                    "Imports run at once, each in one transaction on a database connection it holds until the file is in; one more is 503 with Retry-After. Default: a quarter of --pool-size, at least 1; at most --pool-size - 1.",
                type: .integer, environment: "TASKBASE_MAX_IMPORTS"),
            Option(
                "max-exports", valueName: "N",
                help:
                    "Exports served at once, each read in one snapshot on a database connection it holds until its client has the file; one more is 503 with Retry-After. Default: a quarter of --pool-size, at least 1; at most --pool-size - 1.",
                type: .integer, environment: "TASKBASE_MAX_EXPORTS"),
            Option(
                "idempotency-lease", valueName: "SECONDS",
                help:
                    "A request sent with an Idempotency-Key renews its claim of the key every sixth of this while it runs; a claim not renewed for this long (its server stopped mid-request) is taken for abandoned, and a retry runs the request again, or is told its answer was lost if it had taken effect. Set the same value on every process sharing the database.",
                type: .integer, default: String(Int(IdempotencyLease.standard.lapsesAfter)), environment: "TASKBASE_IDEMPOTENCY_LEASE"),
            Option(
                "heartbeat", valueName: "SECONDS", help: "Seconds between keep-alive comments on event streams.", type: .integer,
                default: "15", environment: "TASKBASE_SSE_HEARTBEAT"),
            Option(
                "stream-buffer", valueName: "BYTES",
                help: "The bytes an event stream may fall behind before the slow client is disconnected.", type: .integer,
                default: "262144", environment: "TASKBASE_SSE_BUFFER"),
            Option(
                "max-streams-per-user", valueName: "N",
                help: "Event streams one user may hold open at once on this process; one more is 429 with Retry-After.", type: .integer,
                default: "16", environment: "TASKBASE_MAX_STREAMS_PER_USER"),
            Option(
                "rate-limit", valueName: "N",
                help:
                    "Requests per minute one user may make, all of them at once if they like; past it 429 with Retry-After. Per process; 0 for no limit.",
                type: .integer, default: "0", environment: "TASKBASE_RATE_LIMIT"),
            Option(
                "auth-failure-limit", valueName: "N",
                help:
                    "Unknown, expired or revoked tokens one client address may present per minute (each costs a database lookup) before 429. Per process; 0 for no limit.",
                type: .integer, default: String(APIOptions.defaultAuthFailureLimit.requests), environment: "TASKBASE_AUTH_FAILURE_LIMIT"),
            Option(
                "trusted-proxy", valueName: "LIST",
                help:
                    "Proxies (IPv4 or IPv6 addresses and CIDR blocks, comma-separated) whose X-Forwarded-For names the client address that --auth-failure-limit charges. None by default: every request is charged to its connection's address.",
                default: "", environment: "TASKBASE_TRUSTED_PROXIES"),
            Option(
                "cors-origin", valueName: "LIST",
                help:
                    "Web page origins (https://app.example.com, comma-separated; * for any) whose pages may call the API from a browser with a token. None by default.",
                default: "", environment: "TASKBASE_CORS_ORIGINS"),
            Option(
                "gzip-level", valueName: "N",
                help:
                    "zlib's level (1 fastest to 9 smallest) for JSON GET answers of 1 KiB or more without a strong ETag (lists, history, the OpenAPI document), sent gzipped to clients whose Accept-Encoding takes gzip; 0 never compresses.",
                type: .integer, default: String(ResponseCompression.standard.level), environment: "TASKBASE_GZIP_LEVEL"),
            Option(
                "tls-cert", valueName: "FILE",
                help: "Serve HTTPS (TLS 1.2 and 1.3) with this PEM certificate, intermediates after it; needs --tls-key.",
                default: "", environment: "TASKBASE_TLS_CERT"),
            Option(
                "tls-key", valueName: "FILE", help: "The certificate's private key, PEM, unencrypted (chmod 600).", default: "",
                environment: "TASKBASE_TLS_KEY"),
            Option(
                "metrics-listen", valueName: "HOST:PORT",
                help:
                    "Serve Prometheus metrics at GET /metrics on this address, apart from the API (requests by route and status, their durations, the database pool, event streams). No token is asked for there: bind it where only the scraper reaches. Off by default.",
                default: "", environment: "TASKBASE_METRICS_ADDR"),
            Option(
                "oidc-issuer", valueName: "URL",
                help:
                    "Also accept JWTs from this identity provider (OpenID Connect): its iss, exactly. Needs --oidc-audience. Its keys are found through its discovery document (ISSUER/.well-known/openid-configuration) unless --oidc-jwks names them. A token's user is the Taskbase user its email claim names, who must exist and be enabled. Off by default.",
                default: "", environment: "TASKBASE_OIDC_ISSUER"),
            Option(
                "oidc-audience", valueName: "AUD", help: "A value the provider's tokens must carry in aud (this API's client id or audience).",
                default: "", environment: "TASKBASE_OIDC_AUDIENCE"),
            Option(
                "oidc-jwks", valueName: "FILE|URL",
                help:
                    "The provider's signing keys, a JWK set: a file, or its https:// jwks_uri (http:// to this machine only); by default, the jwks_uri of the issuer's discovery document. Read at start, again when a token names a key id not in it (at most every 30 s), and again when ten minutes old: a key the provider withdraws stops within ten minutes.",
                default: "", environment: "TASKBASE_OIDC_JWKS"),
            Option(
                "oidc-algorithms", valueName: "LIST",
                help: "The signature algorithms accepted, comma-separated: RS256, ES256. A token's own alg never widens them.",
                default: "RS256", environment: "TASKBASE_OIDC_ALGORITHMS"),
            Option(
                "oidc-email-claim", valueName: "NAME",
                help: "The claim holding the user's email. With email, a token whose email_verified is false is refused.", default: "email",
                environment: "TASKBASE_OIDC_EMAIL_CLAIM"),
            Option(
                "shutdown-grace", valueName: "SECONDS", help: "How long shutdown waits for requests in flight.", type: .integer,
                default: "10"),
            Option(
                "workers", valueName: "N|auto",
                help:
                    "Processes serving the one port, one per core (auto: the cores this process may use, under its CPU affinity and cgroup quota): each a whole taskserve with its own --pool-size connections, rate limits and I/O thread; a supervisor binds the address, passes the socket down, stops them all on a signal, and stops them all when one exits (exiting with its code). With --metrics-listen, worker K serves its own counters on that port + K - 1.",
                default: "1", environment: "TASKBASE_HTTP_WORKERS"),
        ] + SessionLimitOptions.options(lockTimeout: .seconds(10), statementTimeout: .seconds(30)),
        flags: [
            Flag(
                "check",
                help:
                    "Check everything taskserve needs and exit without listening, as a deployment step before the switch: the options, the TLS files, the identity provider's keys, the database (reachable, migrated, usable by the runtime role). One JSON line on stdout when it would serve; warnings go to stderr as at start and do not fail it. Exit 0, or 2 or 3 as serving would."
            ),
            Flag(
                "reuse-port",
                help:
                    "Share the port with other taskserve processes started with it (SO_REUSEPORT): the kernel spreads new connections among them, one per core."
            ),
        ],
        // Serving ends with a signal; a check stopped by one did not check, and says so.
        exitsZeroWhenStopped: { values in !values.flag("check") },
        run: { values in try await serve(values) })

    static func serve(_ values: ParsedValues) async throws {
        let (host, listenPort) = try address(values.string("listen") ?? "127.0.0.1:8080", named: values.shownName(of: "listen"))
        var port = listenPort
        let workers = try Workers.count(values.string("workers") ?? "1", option: values.shownName(of: "workers"))
        let worker = Workers.number()
        var limits = HTTPServerLimits(
            maxBodyBytes: try positive(values, "max-body"), maxConnections: try positive32(values, "max-connections"),
            maxConnectionsPerAddress: UInt32(try notNegative(values, "max-connections-per-address")),
            idleTimeoutSeconds: try positive32(values, "idle-timeout"), sharesPort: values.flag("reuse-port"),
            maxSpooledBodies: try positive(values, "max-uploads"), maxSpooledBodiesPerUser: try positive(values, "max-uploads-per-user"))
        let proxies: TrustedProxies
        do {
            proxies = try TrustedProxies(parsing: values.string("trusted-proxy") ?? "")
        } catch let error as TrustedProxiesError {
            throw UsageError("\(error); write addresses or blocks like 10.0.0.0/8,127.0.0.1,fd00::/8")
        }
        let cors: CORSPolicy?
        do {
            cors = try CORSPolicy(parsing: values.string("cors-origin") ?? "")
        } catch let error as CORSPolicyError {
            throw UsageError(String(describing: error))
        }
        let compression = try compression(values)
        let maxExports = try maxShare(values, "max-exports")
        let maxImports = try maxShare(values, "max-imports")
        let lease = try idempotencyLease(values)
        let tls = try tls(values)
        var metricsAddress = try (values.string("metrics-listen")).flatMap {
            $0.isEmpty ? nil : try address($0, named: values.shownName(of: "metrics-listen"))
        }
        let identityProvider = try identityProvider(values)
        // Every option is judged here, before anything is reached, so that --check refuses
        // what serving would (a --shutdown-grace read only at shutdown once let a server start
        // with a value it then could not stop with, and --check pass it).
        let heartbeat = Duration.seconds(try positive(values, "heartbeat"))
        let streamBufferBytes = try positive(values, "stream-buffer")
        let maxStreamsPerUser = try positive(values, "max-streams-per-user")
        let maxImportBytes = try positive(values, "max-import-body")
        let rateLimit = try perMinute(values, "rate-limit")
        let authFailureLimit = try perMinute(values, "auth-failure-limit")
        let grace = Duration.seconds(try positive(values, "shutdown-grace"))
        // Each worker counts its own requests: worker K serves them on the metrics port + K - 1
        // (each on a free port of its own with port 0), every port a target of the scraper.
        if let (_, metricsPort) = metricsAddress, metricsPort != 0, Int(metricsPort) + workers - 1 > Int(UInt16.max) {
            throw UsageError(
                "\(values.shownName(of: "metrics-listen")) port \(metricsPort) leaves no room for \(workers) workers, each on the next port: give one at most \(Int(UInt16.max) - workers + 1)"
            )
        }
        if let worker, let (metricsHost, metricsPort) = metricsAddress, metricsPort != 0 {
            metricsAddress = (metricsHost, metricsPort + UInt16(worker - 1))
        }
        if workers > 1, worker == nil, !values.flag("check") {
            let (socket, chosen) = try Workers.listen(host: host, port: port, sharesPort: limits.sharesPort)
            let url = HTTPServer.baseURL(host, chosen, secure: tls != nil)
            // Never stopped by its own output: a closed stderr must not bring the workers down.
            let say: @Sendable (String) -> Void = { line in try? StandardStream.standardError.write(line) }
            say(#"{"supervising":"\#(url)","workers":\#(workers),"version":"\#(version)"}"# + "\n")
            try await Workers.supervise(count: workers, socket: socket, grace: grace, say: say)
            say(#"{"stopped":"\#(url)","workers":\#(workers)}"# + "\n")
            return
        }
        if worker != nil {
            // A worker of `--workers`: the supervisor's socket, and its lifeline.
            let inherited = try Workers.inheritedSocket()
            (limits.listeningSocket, limits.sharesPort, port) = (inherited.socket, false, inherited.port)
            Workers.watchLifeline()
        }
        // The provider's keys are read before the database is reached: a key set that cannot
        // be used stops the program at once.
        var identity: IdentityTokenVerifier?
        if let identityProvider {
            do {
                identity = try await IdentityTokenVerifier.start(identityProvider)
            } catch {
                let option: String
                if case .discovery = identityProvider.keys { option = "--oidc-issuer" } else { option = "--oidc-jwks" }
                guard error.unreachable else { throw UsageError("\(option): \(error)") }
                throw CommandFailure("\(option): \(error)", exitCode: .cannotConnect)
            }
        }
        let secrets = TokenSecrets.fromEnvironment()
        let service: TaskService
        do {
            service = try await ServiceConnection.open(
                maxConnections: try poolSize(values), acquireTimeout: .milliseconds(try positive(values, "pool-timeout")),
                limits: try SessionLimitOptions.limits(from: values))
        } catch {
            throw ServiceExitCodes.failure(for: error)
        }
        // What an operator is warned of at start, in this order.
        var warnings: [String] = []
        if let warning = secrets.missingKeyWarning { warnings.append(try warningLine(warning)) }
        if let schemaWarning = try await schemaWarning(service) { warnings.append(schemaWarning) }
        for warning in try await loginWarnings() { warnings.append(try warningLine(warning)) }
        if let warning = transportWarning(host: host, tls: tls, keyPath: values.string("tls-key"), proxies: proxies) { warnings.append(warning) }
        if let warning = identity?.warning { warnings.append(try warningLine(warning)) }
        let identityLine =
            identity.map { verifier in
                func quoted(_ text: String) -> String {
                    var writer = JSONWriter(capacity: 64)
                    writer.string(text)
                    return String(decoding: writer.bytes, as: UTF8.self)
                }
                // Where the keys were found, so a discovered jwks_uri is on record.
                return ",\"identity_provider\":\(quoted(verifier.provider.issuer)),\"identity_keys\":\(quoted(verifier.provider.keys.description))"
            } ?? ""
        if values.flag("check") {
            for warning in warnings { try? StandardStream.standardError.write(warning) }
            let listen = HTTPServer.baseURL(host, port, secure: tls != nil)
            let checked = #"{"check":"ok","listen":"\#(listen)"\#(identityLine),"warnings":\#(warnings.count),"version":"\#(version)"}"#
            print(checked)
            return
        }
        var options = APIOptions(
            secrets: secrets, version: version, heartbeat: heartbeat, streamBufferBytes: streamBufferBytes, maxImportBytes: maxImportBytes)
        options.maxExports = maxExports
        options.maxImports = maxImports
        options.maxStreamsPerUser = maxStreamsPerUser
        options.idempotencyLease = lease
        options.rateLimit = rateLimit
        options.authFailureLimit = authFailureLimit
        options.trustedProxies = proxies
        options.cors = cors
        options.compression = compression
        if metricsAddress != nil { options.metrics = APIMetrics() }
        options.identity = identity
        // Access lines are written in batches (one system call per 50 ms, not per request); the
        // program's own lines are written at once, after what waits.
        // A worker shares stderr with the others: each write whole lines, small enough for a
        // pipe to keep them apart.
        let log = LogWriter(stream: .standardError, sharedWithOtherProcesses: worker != nil)
        let say: @Sendable (String) -> Void = { line in
            log.write(line)
            log.flush()
        }
        let server: APIServer
        var metricsServer: HTTPServer?
        do {
            server = try APIServer.start(service: service, options: options, host: host, port: port, limits: limits, tls: tls) { line in
                log.write(line)
            }
            if let (metricsHost, metricsPort) = metricsAddress {
                let pool = ServiceConnection.openedPool
                do {
                    metricsServer = try server.startMetrics(host: metricsHost, port: metricsPort) {
                        pool.map { MetricsSample.pool($0.statistics) } ?? []
                    }
                } catch {
                    await server.shutdown(grace: .zero)
                    throw CommandFailure("--metrics-listen: \(error)", exitCode: .cannotConnect)
                }
            }
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            throw CommandFailure(String(describing: error), exitCode: .cannotConnect)
        }
        // Every worker would find the same: the operator reads them once, from the first.
        if worker == nil || worker == 1 {
            for warning in warnings { say(warning) }
        }
        let metricsURL = metricsServer.map { ",\"metrics\":\"\($0.baseURL)/metrics\"" } ?? ""
        let workerField = worker.map { ",\"worker\":\($0)" } ?? ""
        say(#"{"listening":"\#(server.baseURL)"\#(workerField)\#(metricsURL)\#(identityLine),"version":"\#(version)"}"# + "\n")
        // The toolkit turns SIGTERM, SIGINT and SIGHUP into cancellation of this task.
        while !Task.isCancelled { try? await Task.sleep(for: .seconds(3_600)) }
        say(#"{"stopping":"\#(server.baseURL)"}"# + "\n")
        // Shutdown waits: shielded from this task's cancellation, its sleeps do wait.
        await withCancellationShield {
            await server.shutdown(grace: grace)
            await metricsServer?.shutdown(grace: .seconds(1))
        }
        say(#"{"stopped":"\#(server.baseURL)"}"# + "\n")
    }

    /// Refuses to serve a database never migrated (exit 3, as a database out of reach); for a
    /// schema older than this build the log line to write, since `/readyz` answers 503 until
    /// it is migrated (a rolling deploy may start servers before its migration job ends).
    static func schemaWarning(_ service: TaskService) async throws -> String? {
        let schema: SchemaStatus
        do {
            schema = try await service.schemaStatus()
        } catch {
            throw ServiceExitCodes.failure(for: error)
        }
        switch schema {
        case .current:
            return nil
        case .neverMigrated:
            throw CommandFailure("\(schema): \(SchemaStatus.migrationAdvice)", exitCode: .cannotConnect)
        case .behind:
            return try warningLine("\(schema); /readyz answers 503 until then: \(SchemaStatus.migrationAdvice)")
        }
    }

    /// What the login may have been made to carry by whoever held it (`LoginTraces`).
    static func loginWarnings() async throws -> [String] {
        guard let pool = ServiceConnection.openedPool else { return [] }
        do {
            return try await LoginTraces.read(pool).warnings
        } catch {
            throw ServiceExitCodes.failure(for: error)
        }
    }

    /// `{"warning": text}` as a line of the log.
    static func warningLine(_ text: String) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        return String(decoding: try encoder.encode(["warning": text]), as: UTF8.self) + "\n"
    }

    /// `HOST:PORT` as an address and a port: IPv4, or IPv6 in brackets (`[::1]:8080`, returned
    /// without them); `localhost` is 127.0.0.1. A host that is not an address (a name, a typo)
    /// is a usage error here, so `--check` refuses what serving could not bind.
    static func address(_ text: String, named option: String = "--listen") throws -> (String, UInt16) {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else {
            throw UsageError("\(option) wants HOST:PORT, like 127.0.0.1:8080 or [::1]:8080, not \(text)")
        }
        var host = text[..<colon]
        let family: Int32
        if host.hasPrefix("[") && host.hasSuffix("]") {
            host = host.dropFirst().dropLast()
            family = AF_INET6
        } else if host.contains(":") {
            throw UsageError("\(option) wants an IPv6 address in brackets, like [::1]:8080, not \(text)")
        } else {
            family = AF_INET
        }
        if host == "localhost" || host.isEmpty { return ("127.0.0.1", port) }
        var bytes = [UInt8](repeating: 0, count: 16)
        guard inet_pton(family, String(host), &bytes) == 1 else {
            throw UsageError(
                "\(option) wants an IPv4 address, or IPv6 in brackets, like 127.0.0.1:8080 or [::1]:8080, not \(text)")
        }
        return (String(host), port)
    }

    /// A limit of N a minute from option `name`; nil for 0 (none).
    private static func perMinute(_ values: ParsedValues, _ name: String) throws -> RateLimit? {
        guard let count = values.int(name), count >= 0 else {
            throw UsageError("\(values.shownName(of: name)) wants a number per minute, 0 for no limit")
        }
        return count > 0 ? RateLimit(requests: count, per: .seconds(60)) : nil
    }

    /// The certificate and key `--tls-cert` and `--tls-key` name, checked; nil when neither
    /// is given. One without the other, or a file that cannot serve, is a usage error.
    private static func tls(_ values: ParsedValues) throws -> HTTPServerTLS? {
        let (certificate, key) = (values.string("tls-cert") ?? "", values.string("tls-key") ?? "")
        guard !certificate.isEmpty || !key.isEmpty else { return nil }
        guard !certificate.isEmpty, !key.isEmpty else {
            throw UsageError("--tls-cert and --tls-key go together: give both, or neither for plain HTTP")
        }
        do {
            return try HTTPServerTLS.load(certificatePath: certificate, keyPath: key)
        } catch {
            throw UsageError("--tls-cert/--tls-key: \(error)")
        }
    }

    /// The warning line a listener that exposes tokens deserves, if any: plain HTTP on an
    /// address other machines may reach, with no trusted proxy (which would hold TLS) in front;
    /// or a private key others may read.
    static func transportWarning(host: String, tls: HTTPServerTLS?, keyPath: String?, proxies: TrustedProxies) -> String? {
        if tls != nil, let keyPath, let attributes = try? FileManager.default.attributesOfItem(atPath: keyPath),
            let mode = attributes[.posixPermissions] as? Int, mode & 0o004 != 0
        {
            return #"{"warning":"the TLS key file can be read by every user of this machine: chmod 600 it"}"# + "\n"
        }
        let loopback = host == "::1" || host.hasPrefix("127.")
        guard tls == nil, !loopback, proxies == .none else { return nil }
        return
            #"{"warning":"serving plain HTTP on an address other machines may reach: bearer tokens cross the network in the clear; give --tls-cert and --tls-key, or put a TLS proxy in front (and name it with --trusted-proxy)"}"#
            + "\n"
    }

    /// The identity provider the `--oidc-*` options describe; nil when none is named. Issuer,
    /// audience and keys go together.
    private static func identityProvider(_ values: ParsedValues) throws -> IdentityProvider? {
        let (issuer, audience, keys) = (values.string("oidc-issuer") ?? "", values.string("oidc-audience") ?? "", values.string("oidc-jwks") ?? "")
        guard !issuer.isEmpty || !audience.isEmpty || !keys.isEmpty else { return nil }
        let missing = [("--oidc-issuer", issuer), ("--oidc-audience", audience)].filter { $0.1.isEmpty }.map(\.0)
        guard missing.isEmpty else {
            throw UsageError(
                "an identity provider needs --oidc-issuer and --oidc-audience together (and --oidc-jwks unless the issuer publishes a discovery document); missing \(missing.joined(separator: ", "))"
            )
        }
        var algorithms: Set<IdentityProvider.Algorithm> = []
        for name in (values.string("oidc-algorithms") ?? "").split(separator: ",").map({ $0.trimmingSpaces().uppercased() }) where !name.isEmpty {
            guard let algorithm = IdentityProvider.Algorithm(rawValue: name) else {
                throw UsageError("--oidc-algorithms: \(name) is not one taskserve verifies (RS256, ES256)")
            }
            algorithms.insert(algorithm)
        }
        guard !algorithms.isEmpty else { throw UsageError("--oidc-algorithms wants at least one of RS256, ES256") }
        let claim = (values.string("oidc-email-claim") ?? "").trimmingSpaces()
        guard !claim.isEmpty else { throw UsageError("--oidc-email-claim wants a claim name, like email") }
        do {
            let source = keys.isEmpty ? try IdentityProvider.KeySource.discovered(from: issuer) : try IdentityProvider.KeySource(parsing: keys)
            return IdentityProvider(issuer: issuer, audience: audience, keys: source, algorithms: algorithms, userClaim: claim)
        } catch {
            throw UsageError("\(keys.isEmpty ? "--oidc-issuer" : "--oidc-jwks"): \(error)")
        }
    }

    /// The compression `--gzip-level` asks for; nil for 0 (none).
    private static func compression(_ values: ParsedValues) throws -> ResponseCompression? {
        guard let level = values.int("gzip-level"), (0...9).contains(level) else {
            throw UsageError("\(values.shownName(of: "gzip-level")) wants 1 (fastest) to 9 (smallest), or 0 for no compression")
        }
        guard level > 0 else { return nil }
        var compression = ResponseCompression.standard
        compression.level = Int32(level)
        return compression
    }

    /// `--max-exports` or `--max-imports` (`name`), or a quarter of the pool; always leaves
    /// other requests a connection.
    private static func maxShare(_ values: ParsedValues, _ name: String) throws -> Int {
        let pool = try poolSize(values)
        guard values.string(name) != nil else { return max(1, pool / 4) }
        let share = try positive(values, name)
        guard share < pool else {
            let what = name.dropFirst(4)
            throw UsageError(
                "\(values.shownName(of: name)) \(share) would let \(what) hold every connection of --pool-size \(pool); give fewer than \(pool)")
        }
        return share
    }

    /// `--pool-size`: 2 or more, so that an export or an import never holds the only connection.
    private static func poolSize(_ values: ParsedValues) throws -> Int {
        let pool = try positive(values, "pool-size")
        guard pool >= 2 else {
            throw UsageError("\(values.shownName(of: "pool-size")) \(pool) would let one export or import hold the only connection; give 2 or more")
        }
        return pool
    }

    /// `--idempotency-lease`: 1 second to a day (the longest a key is kept).
    private static func idempotencyLease(_ values: ParsedValues) throws -> IdempotencyLease {
        let lifetime = Int(TaskService.idempotencyLifetime)
        guard let value = values.int("idempotency-lease"), (1...lifetime).contains(value) else {
            throw UsageError("\(values.shownName(of: "idempotency-lease")) wants seconds, 1 to \(lifetime)")
        }
        return IdempotencyLease(lapsesAfter: TimeInterval(value))
    }

    private static func positive(_ values: ParsedValues, _ name: String) throws -> Int {
        guard let value = values.int(name), value > 0 else { throw UsageError("\(values.shownName(of: name)) wants a positive number") }
        return value
    }

    /// A positive option that libmicrohttpd takes as a 32-bit number: a larger one is a usage
    /// error, where converting it stopped the program.
    private static func positive32(_ values: ParsedValues, _ name: String) throws -> UInt32 {
        guard let value = values.int(name), value > 0, value <= Int(UInt32.max) else {
            throw UsageError("\(values.shownName(of: name)) wants a positive number, at most \(UInt32.max)")
        }
        return UInt32(value)
    }

    private static func notNegative(_ values: ParsedValues, _ name: String) throws -> Int {
        guard let value = values.int(name), value >= 0, value <= Int(UInt32.max) else {
            throw UsageError("\(values.shownName(of: name)) wants 0 or a positive number")
        }
        return value
    }
}
