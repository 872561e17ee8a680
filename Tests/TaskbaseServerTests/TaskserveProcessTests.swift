import Foundation
import PGStore
import TaskbaseServer
import TaskbaseTestSupport
import TaskStorePG
import TaskbaseWire
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// taskserve and taskctl as processes against PostgreSQL: what an operator does.
@Suite("taskserve as a process against PostgreSQL", .serialized, .timeLimit(.minutes(3)))
struct TaskserveProcessTests {
    static let tokenKey = "process test key"

    func environment() async throws -> [String: String] {
        var environment = TestDatabases.childEnvironment(try await TestDatabases.shared.value)
        environment["TASKBASE_TOKEN_KEY"] = Self.tokenKey
        environment["PATH"] = ProcessInfo.processInfo.environment["PATH"]
        return environment
    }

    func taskctl(_ arguments: [String], _ environment: [String: String]) async throws -> ProgramRun {
        try await BuiltProgram.run(BuiltProgram.url("taskctl"), arguments: arguments, environment: environment)
    }

    /// taskserve run with `arguments` against a database that cannot be reached: what it says
    /// of its command line before (or instead of) connecting.
    static func offline(_ arguments: [String]) async throws -> ProgramRun {
        try await BuiltProgram.run(
            BuiltProgram.url("taskserve"), arguments: arguments, environment: ["DATABASE_URL": "host=127.0.0.1 port=1 dbname=none connect_timeout=2"])
    }

    /// A user with a token minted by `taskctl token create --json`, and a team they own.
    func castMember(_ environment: [String: String]) async throws -> (email: String, team: String, token: NewTokenDocument) {
        let suffix = String(UInt32.random(in: 0..<UInt32.max), radix: 36)
        let email = "api.\(suffix)@example.com", team = "P" + suffix.uppercased().prefix(8)
        #expect(try await taskctl(["user", "add", email, "--name", "API user"], environment).exitCode == 0)
        #expect(try await taskctl(["team", "create", team, "--name", "Process team", "--as", email], environment).exitCode == 0)
        let minted = try await taskctl(["token", "create", email, "--name", "ci", "--expires-in", "1h", "--json"], environment)
        #expect(minted.exitCode == 0, "\(minted.standardError)")
        return (email, team, try WireJSON.makeDecoder().decode(NewTokenDocument.self, from: Data(minted.standardOutput.utf8)))
    }

    @Test(
        "--help and --version exit 0; a bad --listen, --trusted-proxy, --cors-origin, --gzip-level or --max-exports is a usage error; no database is exit 3"
    )
    func commandLine() async throws {
        let help = try await BuiltProgram.run(BuiltProgram.url("taskserve"), arguments: ["--help"], environment: [:])
        #expect(help.exitCode == 0)
        #expect(help.standardOutput.contains("TASKBASE_HTTP_ADDR"))
        #expect(help.standardOutput.contains("--max-uploads-per-user") && help.standardOutput.contains("TASKBASE_HTTP_MAX_UPLOADS_PER_USER"))
        #expect(
            try await BuiltProgram.run(BuiltProgram.url("taskserve"), arguments: ["--version"], environment: [:]).standardOutput.hasPrefix(
                "taskserve "))
        #expect(try await BuiltProgram.run(BuiltProgram.url("taskserve"), arguments: ["--listen", "nowhere"], environment: [:]).exitCode == 2)
        // Refused before the database is tried (this one is unreachable).
        let proxy = try await Self.offline(["--trusted-proxy", "10.0.0.0/8,proxy.local"])
        #expect(proxy.exitCode == 2)
        #expect(proxy.standardError.contains(#"--trusted-proxy: "proxy.local": not an IPv4 or IPv6 address"#), "\(proxy.standardError)")
        let cors = try await Self.offline(["--cors-origin", "app.example.com"])
        #expect(cors.exitCode == 2)
        #expect(cors.standardError.contains(#"--cors-origin: "app.example.com": an origin is scheme://host[:port]"#), "\(cors.standardError)")
        let gzip = try await Self.offline(["--gzip-level", "10"])
        #expect(gzip.exitCode == 2)
        #expect(gzip.standardError.contains("--gzip-level wants 1 (fastest) to 9 (smallest), or 0"), "\(gzip.standardError)")
        let exports = try await Self.offline(["--pool-size", "4", "--max-exports", "4"])
        #expect(exports.exitCode == 2)
        #expect(
            exports.standardError.contains("--max-exports 4 would let exports hold every connection of --pool-size 4"), "\(exports.standardError)")
        // One connection: an export or an import (a quarter of the pool, at least 1) would hold it.
        let single = try await Self.offline(["--pool-size", "1"])
        #expect(single.exitCode == 2)
        #expect(single.standardError.contains("--pool-size 1 would let one export or import hold the only connection"), "\(single.standardError)")
        let issuerAlone = try await Self.offline(["--oidc-issuer", "https://login.example.com/"])
        #expect(issuerAlone.exitCode == 2)
        #expect(issuerAlone.standardError.contains("missing --oidc-audience"), "\(issuerAlone.standardError)")
        #expect(!issuerAlone.standardError.contains("missing --oidc-audience, --oidc-jwks"), "the keys can be discovered")
        let provider = ["--oidc-issuer", "https://login.example.com/", "--oidc-audience", "taskbase"]
        let noKeys = try await Self.offline(provider + ["--oidc-jwks", "/nonexistent/jwks.json"])
        #expect(noKeys.exitCode == 2)
        #expect(noKeys.standardError.contains("cannot read the key set /nonexistent/jwks.json"), "\(noKeys.standardError)")
        let plainURL = try await Self.offline(provider + ["--oidc-jwks", "http://login.example.com/jwks"])
        #expect(plainURL.exitCode == 2)
        #expect(plainURL.standardError.contains("must be https://"), "\(plainURL.standardError)")
        // Without --oidc-jwks the keys are discovered from the issuer, which must be https://
        // (exit 2 before anything is fetched) and reachable (exit 3).
        let plainIssuer = try await Self.offline(["--oidc-issuer", "http://login.example.com/", "--oidc-audience", "taskbase"])
        #expect(plainIssuer.exitCode == 2)
        #expect(plainIssuer.standardError.contains("--oidc-issuer: the issuer must be https://"), "\(plainIssuer.standardError)")
        let silentIssuer = try await Self.offline(["--oidc-issuer", "http://127.0.0.1:9/", "--oidc-audience", "taskbase"])
        #expect(silentIssuer.exitCode == 3, "\(silentIssuer.standardError)")
        #expect(
            silentIssuer.standardError.contains(
                "--oidc-issuer: cannot fetch the discovery document at http://127.0.0.1:9/.well-known/openid-configuration"),
            "\(silentIssuer.standardError)")
        let hmac = try await Self.offline(provider + ["--oidc-jwks", "/nonexistent/jwks.json", "--oidc-algorithms", "RS256,HS256"])
        #expect(hmac.exitCode == 2)
        #expect(hmac.standardError.contains("--oidc-algorithms: HS256 is not one taskserve verifies"), "\(hmac.standardError)")
        let offline = try await Self.offline(["--listen", "127.0.0.1:0", "--pool-size", "4", "--max-exports", "3"])
        #expect(offline.exitCode == 3, "\(offline.standardError)")
    }

    @Test("every option is judged before the database is tried: --check refuses what serving would, --shutdown-grace included")
    func everyOptionJudgedFirst() async throws {
        let refused: [(arguments: [String], says: String)] = [
            (["--heartbeat", "0"], "--heartbeat wants a positive number"),
            (["--stream-buffer", "0"], "--stream-buffer wants a positive number"),
            (["--max-streams-per-user", "0"], "--max-streams-per-user wants a positive number"),
            (["--max-import-body", "-1"], "--max-import-body wants a positive number"),
            (["--max-uploads-per-user", "0"], "--max-uploads-per-user wants a positive number"),
            (["--rate-limit", "-1"], "--rate-limit wants a number per minute"),
            (["--auth-failure-limit", "-5"], "--auth-failure-limit wants a number per minute"),
            (["--shutdown-grace", "0"], "--shutdown-grace wants a positive number"),
        ]
        for (arguments, says) in refused {
            for check in [["--check"], []] {
                // The database is out of reach: a usage error must come before trying it (exit 3).
                let run = try await Self.offline(check + arguments)
                #expect(run.exitCode == 2, "\(check + arguments): \(run)")
                #expect(run.standardError.contains(says), "\(check + arguments): \(run.standardError)")
            }
        }
    }

    @Test("--listen and --metrics-listen take an address, not a host name: --check refuses what serving could not bind, and its line stays JSON")
    func listenTakesAnAddress() async throws {
        for (option, value) in [
            ("--listen", "db.example.com:8080"), ("--listen", #"a"b:8080"#), ("--listen", "999.1.1.1:8080"), ("--listen", "[fe80::zz]:8080"),
            ("--metrics-listen", "metrics.internal:9464"),
        ] {
            let run = try await Self.offline(["--check", option, value])
            #expect(run.exitCode == 2, "\(option) \(value): \(run)")
            #expect(run.standardOutput.isEmpty, "\(option) \(value): \(run.standardOutput)")
            #expect(
                run.standardError.hasPrefix("taskserve: error: \(option) wants an IPv4 address, or IPv6 in brackets, like 127.0.0.1:8080"),
                "\(option) \(value): \(run.standardError)")
        }
    }

    @Test("a value refused from an environment variable names the variable, not an option that was not given")
    func variableNamed() async throws {
        let cases: [(variable: String, value: String, says: String)] = [
            ("TASKBASE_SSE_HEARTBEAT", "0", "TASKBASE_SSE_HEARTBEAT wants a positive number"),
            ("TASKBASE_HTTP_ADDR", "nowhere", "TASKBASE_HTTP_ADDR wants HOST:PORT"),
            ("TASKBASE_GZIP_LEVEL", "12", "TASKBASE_GZIP_LEVEL wants 1 (fastest) to 9"),
            ("TASKBASE_RATE_LIMIT", "-1", "TASKBASE_RATE_LIMIT wants a number per minute"),
        ]
        for (variable, value, says) in cases {
            let run = try await BuiltProgram.run(
                BuiltProgram.url("taskserve"), arguments: ["--check"],
                environment: ["DATABASE_URL": "host=127.0.0.1 port=1 dbname=none connect_timeout=2", variable: value])
            #expect(run.exitCode == 2, "\(variable): \(run)")
            #expect(run.standardError.hasPrefix("taskserve: error: \(says)"), "\(variable): \(run.standardError)")
        }
        // Given on the command line, the option is named as before.
        let option = try await Self.offline(["--heartbeat", "0"])
        #expect(option.standardError.hasPrefix("taskserve: error: --heartbeat wants a positive number"), "\(option.standardError)")
    }

    @Test("a --max-connections or --idle-timeout past 32 bits is a usage error naming the largest, not a crash")
    func thirtyTwoBitOptions() async throws {
        for option in ["--max-connections", "--idle-timeout"] {
            let run = try await Self.offline([option, "4294967296"])
            #expect(run.exitCode == 2, "\(run)")
            #expect(run.standardError.contains("\(option) wants a positive number, at most 4294967295"), "\(run.standardError)")
        }
    }

    @Test("--check: one line on stdout and exit 0 without listening; warnings on stderr do not fail it; no database is exit 3")
    func check() async throws {
        var environment = try await environment()
        let taskserve = BuiltProgram.url("taskserve")
        let checked = try await BuiltProgram.run(taskserve, arguments: ["--check", "--listen", "127.0.0.1:1"], environment: environment)
        #expect(checked.exitCode == 0, "\(checked.standardError)")
        let line = try #require(
            try JSONSerialization.jsonObject(with: Data(checked.standardOutput.utf8)) as? [String: Any], "\(checked.standardOutput)")
        #expect(line["check"] as? String == "ok")
        #expect(line["listen"] as? String == "http://127.0.0.1:1", "port 1 is not for us to bind: the check never listens")
        #expect(line["warnings"] as? Int == 0, "\(checked.standardError)")
        #expect(!checked.standardError.contains("listening"))

        // Where it would listen: 127.0.0.1:8080 by default, TASKBASE_HTTP_ADDR when set,
        // --listen over both.
        environment["TASKBASE_HTTP_ADDR"] = nil
        for (variable, arguments, listen) in [
            (nil, [String](), "http://127.0.0.1:8080"), ("127.0.0.1:2", [], "http://127.0.0.1:2"),
            ("127.0.0.1:2", ["--listen", "127.0.0.1:3"], "http://127.0.0.1:3"),
        ] {
            var chosen = environment
            chosen["TASKBASE_HTTP_ADDR"] = variable
            let run = try await BuiltProgram.run(taskserve, arguments: ["--check"] + arguments, environment: chosen)
            #expect(run.exitCode == 0, "\(run.standardError)")
            #expect(run.standardOutput.contains(#""listen":"\#(listen)""#), "\(variable ?? "unset") \(arguments): \(run.standardOutput)")
        }

        environment["TASKBASE_TOKEN_KEY"] = nil
        let warned = try await BuiltProgram.run(taskserve, arguments: ["--check", "--listen", "0.0.0.0:8080"], environment: environment)
        #expect(warned.exitCode == 0, "\(warned.standardError)")
        #expect(
            warned.standardError.contains("TASKBASE_TOKEN_KEY is not set") && warned.standardError.contains("serving plain HTTP"),
            "\(warned.standardError)")
        #expect(warned.standardOutput.contains(#""warnings":2"#), "\(warned.standardOutput)")

        let offline = try await Self.offline(["--check"])
        #expect(offline.exitCode == 3, "\(offline.standardError)")
        #expect(offline.standardOutput.isEmpty)
        let usage = try await Self.offline(["--check", "--gzip-level", "12"])
        #expect(usage.exitCode == 2, "\(usage.standardError)")
    }

    @Test("--check stopped by SIGTERM before it could check exits 143 saying so: 0 means checked, and it did not check")
    func checkStopped() async throws {
        // A database that accepts the connection and never answers: the check waits on it.
        let silent = LoopbackSocket(listening: true)
        defer { silent.close() }
        let check = try BuiltProgram.start(
            BuiltProgram.url("taskserve"), arguments: ["--check"],
            environment: BuiltProgram.environment(adding: [
                "DATABASE_URL": "host=127.0.0.1 port=\(silent.port) dbname=none sslmode=disable connect_timeout=60",
                "TASKBASE_TOKEN_KEY": Self.tokenKey,
            ]))
        try await waitUntil("taskserve --check to take SIGTERM over") { check.takesOver(SIGTERM) }
        try await Task.sleep(for: .milliseconds(300))
        check.send(SIGTERM)
        // At once, not when the 60 s connect timeout has passed.
        let outcome = try await check.finish(within: .seconds(30))
        #expect(!outcome.killedBySignal && outcome.exitCode == 128 + SIGTERM, "\(outcome)")
        #expect(outcome.standardError.contains("interrupted by SIGTERM"), "\(outcome)")
        #expect(outcome.standardOutput.isEmpty, "\(outcome)")
    }

    @Test(
        "what a stolen runtime login leaves behind that outlives a new password (its own session defaults, large objects) is warned of, never the values"
    )
    func loginTraces() async throws {
        let shared = try await TestDatabases.shared.value
        try await TestLogin.with(memberOf: ["taskbase_app"]) { login in
            let config = login.config(for: shared)
            var environment = ["DATABASE_URL": TestDatabases.connectionString(config), "TASKBASE_TOKEN_KEY": Self.tokenKey]
            environment["PATH"] = ProcessInfo.processInfo.environment["PATH"]
            let taskserve = BuiltProgram.url("taskserve")
            let clean = try await BuiltProgram.run(taskserve, arguments: ["--check"], environment: environment)
            #expect(clean.exitCode == 0 && clean.standardOutput.contains(#""warnings":0"#), "\(clean)")
            // The attack: with nothing but the login, defaults every later session of it gets
            // (one of them in this database only) and a large object. A value that could be a
            // secret an operator set must not reach the log.
            let marker = "marker-\(UInt32.random(in: 0..<UInt32.max))"
            try await PGConnection.with(config) { connection in
                _ = try await connection.simpleQuery(
                    unsafeSQL: """
                        ALTER ROLE \(login.name) SET work_mem = '1MB';
                        ALTER ROLE \(login.name) SET application_name = '\(marker)';
                        ALTER ROLE \(login.name) IN DATABASE \(PGQuery.quoteIdentifier(shared["dbname"] ?? "")) SET enable_indexscan = off;
                        SELECT lo_from_bytea(0, '\\x00'::bytea)
                        """)
            }
            let warned = try await BuiltProgram.run(taskserve, arguments: ["--check"], environment: environment)
            #expect(warned.exitCode == 0 && warned.standardOutput.contains(#""warnings":2"#), "\(warned)")
            #expect(
                warned.standardError.contains("has session defaults of its own (ALTER ROLE ... SET): application_name, enable_indexscan, work_mem;"),
                "\(warned.standardError)")
            #expect(warned.standardError.contains("owns 1 large object, which Taskbase never makes"), "\(warned.standardError)")
            #expect(!warned.standardError.contains(marker) && !warned.standardError.contains("1MB"), "\(warned.standardError)")
            let serve = try await ServeProcess(environment: environment)
            #expect(serve.log.contains("has session defaults of its own"), "\(serve.log)")
            #expect(try await serve.stop() == 0)
            // What the warning says to do clears it.
            try await PGConnection.with(try TestDatabases.admin()) { connection in
                _ = try await connection.simpleQuery(
                    unsafeSQL: """
                        ALTER ROLE \(login.name) RESET ALL;
                        ALTER ROLE \(login.name) IN DATABASE \(PGQuery.quoteIdentifier(shared["dbname"] ?? "")) RESET ALL
                        """)
            }
            try await PGConnection.with(config) { connection in
                _ = try await connection.simpleQuery(
                    unsafeSQL: "SELECT lo_unlink(oid) FROM pg_largeobject_metadata WHERE lomowner = '\(login.name)'::regrole")
            }
            let cleared = try await BuiltProgram.run(taskserve, arguments: ["--check"], environment: environment)
            #expect(cleared.exitCode == 0 && cleared.standardOutput.contains(#""warnings":0"#), "\(cleared)")
        }
    }

    @Test("on a database never migrated taskserve refuses to start, exit 3, saying to run taskmigrate up")
    func neverMigrated() async throws {
        try await TestDatabase.with(migrated: false, purpose: "taskserve schema") { database in
            var environment = TestDatabases.childEnvironment(database.config)
            environment["PATH"] = ProcessInfo.processInfo.environment["PATH"]
            let checked = try await BuiltProgram.run(BuiltProgram.url("taskserve"), arguments: ["--check"], environment: environment)
            #expect(checked.exitCode == 3 && checked.standardError.contains("taskmigrate up"), "\(checked.standardError)")
            do {
                let serve = try await ServeProcess(environment: environment)
                Issue.record("taskserve listened on a database never migrated: \(serve.log)")
                _ = try await serve.stop()
            } catch let failure as ServeFailure {
                #expect(failure.status == 3, "\(failure.log)")
                #expect(
                    failure.log.contains(
                        "the database was never migrated: check with taskmigrate status, and apply what is pending with taskmigrate up"),
                    "\(failure.log)")
            }
        }
    }

    @Test("with its schema behind, taskserve starts and logs it, /readyz is 503 saying why, and 200 once migrated")
    func schemaBehind() async throws {
        try await TestDatabase.with(migrated: true, purpose: "taskserve schema") { database in
            var environment = TestDatabases.childEnvironment(database.config)
            environment["PATH"] = ProcessInfo.processInfo.environment["PATH"]
            let needed = PostgresTaskStore.neededSchemaVersion
            try await database.withConnection { connection in
                _ = try await connection.simpleQuery(
                    unsafeSQL: """
                        CREATE TABLE kept_migration AS SELECT * FROM schema_migrations WHERE version = \(needed);
                        DELETE FROM schema_migrations WHERE version = \(needed)
                        """)
            }
            let serve = try await ServeProcess(environment: environment)
            #expect(serve.log.contains("older than the version \(needed) this program needs; /readyz answers 503"), "\(serve.log)")
            let notReady = try await HTTPClient(baseURL: serve.baseURL).get("/readyz")
            #expect(notReady.status == 503)
            #expect(
                notReady.problem?.detail
                    == "the database schema is at version \(needed - 1), older than the version \(needed) this program needs: "
                    + "check with taskmigrate status, and apply what is pending with taskmigrate up")
            try await database.withConnection { connection in
                _ = try await connection.simpleQuery(
                    unsafeSQL: "INSERT INTO schema_migrations SELECT * FROM kept_migration; DROP TABLE kept_migration")
            }
            // An answer is reused for a second (a flood of probes costs one check a second), so
            // the change shows within about that long, as it does to a probe polling for it.
            try await waitUntil("/readyz to answer 200", limit: .seconds(10), every: .milliseconds(200)) {
                try await HTTPClient(baseURL: serve.baseURL).get("/readyz").status == 200
            }
            #expect(try await serve.stop() == 0)
        }
    }

    @Test("--listen [::1]:0 serves IPv6 only: the listening line brackets it, a token works, the log names the client ::1")
    func listensOnIPv6() async throws {
        let environment = try await environment()
        let (email, _, token) = try await castMember(environment)
        let serve = try await ServeProcess(environment: environment, listen: "[::1]:0")
        #expect(serve.baseURL.hasPrefix("http://[::1]:"), "\(serve.baseURL)")
        let me = try await RawConnection.getOverIPv6(serve.baseURL, "/v1/me", headers: ["Authorization": "Bearer \(token.token)"])
        #expect(me.status == 200, "\(me.text)")
        #expect(me.text.contains(#""email":"\#(email)""#))
        try await waitUntil("the access log") { !serve.accessLog.isEmpty }
        #expect(serve.accessLog.contains { $0["route"] as? String == "GET /v1/me" && $0["client"] as? String == "::1" }, "\(serve.log)")
        #expect(try await serve.stop() == 0)
        let unbracketed = try await BuiltProgram.run(BuiltProgram.url("taskserve"), arguments: ["--listen", "::1:0"], environment: environment)
        #expect(unbracketed.exitCode == 2)
        #expect(unbracketed.standardError.contains("in brackets, like [::1]:8080"), "\(unbracketed.standardError)")
    }

    @Test("--metrics-listen: the listening line names the metrics URL, which counts the API's answers and shows the pool; a bad address is exit 2")
    func metricsListen() async throws {
        let environment = try await environment()
        let (_, _, token) = try await castMember(environment)
        let serve = try await ServeProcess(environment: environment, arguments: ["--metrics-listen", "127.0.0.1:0"])
        let line = try #require(serve.log.split(separator: "\n").first { $0.contains(#""listening""#) })
        let metricsURL = try #require((try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["metrics"] as? String)
        #expect(metricsURL.hasPrefix("http://127.0.0.1:") && metricsURL.hasSuffix("/metrics") && !metricsURL.hasPrefix(serve.baseURL))
        #expect(try await HTTPClient(baseURL: serve.baseURL, token: token.token).get("/v1/me").status == 200)
        let scraped = try await HTTPClient(baseURL: String(metricsURL.dropLast("/metrics".count))).get("/metrics")
        #expect(scraped.status == 200)
        #expect(scraped.text.contains(#"taskbase_http_requests_total{route="GET /v1/me",status="200"} 1"#), "\(scraped.text)")
        #expect(scraped.text.contains(#"taskbase_db_pool_connections{state="idle"} "#))
        #expect(scraped.text.contains(#"taskbase_build_info{version="taskserve "#))
        #expect(try await serve.stop() == 0)
        let bad = try await Self.offline(["--metrics-listen", "9090"])
        #expect(bad.exitCode == 2)
        #expect(bad.standardError.contains("--metrics-listen wants HOST:PORT"), "\(bad.standardError)")
    }

    @Test("--oidc-issuer alone with its audience: the keys come from the discovery document, the listening line names them, a JWT works")
    func discoveredIdentityProvider() async throws {
        let environment = try await environment()
        let (email, _, _) = try await castMember(environment)
        let provider = try IdentityTokenTests.discoveryServer { tenant, base in
            let algorithms = tenant == "ps" ? #"["PS256"]"# : #"["RS256", "PS256"]"#
            return
                #"{"issuer": "\#(base)/\#(tenant)", "jwks_uri": "\#(base)/\#(tenant)/keys", "id_token_signing_alg_values_supported": \#(algorithms)}"#
        }
        let issuer = provider.baseURL + "/corp"
        let checked = try await BuiltProgram.run(
            BuiltProgram.url("taskserve"), arguments: ["--check", "--oidc-issuer", issuer, "--oidc-audience", "taskbase-api"],
            environment: environment)
        #expect(checked.exitCode == 0 && checked.standardOutput.contains(#""identity_keys":"\#(provider.baseURL)/corp/keys""#), "\(checked)")
        #expect(checked.standardOutput.contains(#""warnings":0"#), "\(checked)")
        let psOnly = try await BuiltProgram.run(
            BuiltProgram.url("taskserve"), arguments: ["--check", "--oidc-issuer", provider.baseURL + "/ps", "--oidc-audience", "taskbase-api"],
            environment: environment)
        #expect(psOnly.exitCode == 0 && psOnly.standardOutput.contains(#""warnings":1"#), "\(psOnly)")
        #expect(psOnly.standardError.contains("signs ID tokens with PS256"), "\(psOnly.standardError)")
        let serve = try await ServeProcess(environment: environment, arguments: ["--oidc-issuer", issuer, "--oidc-audience", "taskbase-api"])
        let line = try #require(serve.log.split(separator: "\n").first { $0.contains(#""listening""#) })
        let listening = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(listening["identity_provider"] as? String == issuer)
        #expect(listening["identity_keys"] as? String == provider.baseURL + "/corp/keys")
        let token = Minted.token(
            ["alg": "RS256", "kid": ProviderKey.rsa.id], Minted.claims(email, issuer: issuer, audience: "taskbase-api"), signedBy: .rsa)
        let me = try await HTTPClient(baseURL: serve.baseURL, token: token).get("/v1/me")
        #expect(me.status == 200, "\(me.text)")
        #expect(try me.decode(UserDocument.self).email == email)
        #expect(try await serve.stop() == 0)
        await provider.shutdown(grace: .seconds(1))
    }

    @Test("a token from taskctl works over HTTP; the access log names route, status and token prefix, never the token; SIGTERM exits 0")
    func tokenFromTaskctl() async throws {
        let environment = try await environment()
        let (email, team, token) = try await castMember(environment)
        let serve = try await ServeProcess(environment: environment)
        let client = HTTPClient(baseURL: serve.baseURL, token: token.token)
        let me = try await client.get("/v1/me")
        #expect(me.status == 200)
        #expect(try me.decode(UserDocument.self).email == email)
        let created = try await client.send("POST", "/v1/teams/\(team)/tasks", json: #"{"title": "From HTTP"}"#)
        #expect(created.status == 201)
        let listed = try await taskctl(["task", "list", "--team", team, "--as", email, "--json"], environment)
        #expect(listed.standardOutput.contains("From HTTP"))

        let listing = try await taskctl(["token", "list", email, "--json"], environment)
        #expect(listing.exitCode == 0)
        #expect(!listing.standardOutput.contains(token.token))
        #expect(listing.standardOutput.contains(token.prefix))

        try await waitUntil("the access log") { serve.accessLog.count >= 2 }
        let lines = serve.accessLog
        #expect(
            lines.contains {
                $0["route"] as? String == "POST /v1/teams/{team}/tasks" && $0["status"] as? Int == 201 && $0["token"] as? String == token.prefix
                    && $0["client"] as? String == "127.0.0.1" && $0["method"] as? String == "POST"
                    && $0["path"] as? String == "/v1/teams/\(team)/tasks" && (($0["duration_ms"] as? Double).map { $0 >= 0 } ?? false)
                    && ($0["at"] as? String).flatMap(WireDate.date) != nil
            }, "\(lines)")
        #expect(!serve.log.contains(token.token))
        #expect(try await serve.stop() == 0)
        #expect(serve.log.contains(#""stopped""#))
    }

    /// `--max-exports` unset is a quarter of `--pool-size`: with a pool of 4, one export at a time.
    @Test("with --pool-size 4 and no --max-exports, a second export while one downloads is 503 with Retry-After 5")
    func exportCapFromThePool() async throws {
        let environment = try await environment()
        let (email, team, token) = try await castMember(environment)
        let serve = try await ServeProcess(environment: environment, arguments: ["--pool-size", "4", "--stream-buffer", "4096"])
        let client = HTTPClient(baseURL: serve.baseURL, token: token.token)
        let imported = try await client.send(
            "POST", "/v1/teams/\(team)/imports", body: Data(ExportRouteTests.file(rows: 400, assignee: email, notesBytes: 800).utf8),
            headers: ["Content-Type": "text/csv"])
        #expect(imported.status == 200, "\(imported.text)")
        // A reader that stops reading holds its export, and the one slot, open.
        let reader = try RawConnection(port: serve.port, receiveBuffer: 2_048)
        reader.get("/v1/teams/\(team)/export", headers: ["Authorization": "Bearer \(token.token)"])
        #expect(await reader.read(until: { $0.contains("External ID") }))
        let refused = try await client.get("/v1/teams/\(team)/export")
        #expect(refused.status == 503, "\(refused.status): \(refused.text.prefix(300))")
        #expect(refused.header("Retry-After") == "5" && refused.text.contains("--max-exports"), "\(refused.text.prefix(300))")
        reader.reset()
        #expect(try await serve.stop() == 0)
    }

    @Test("--heartbeat 1: an idle event stream gets a keep-alive comment every second, not every 15")
    func heartbeatOption() async throws {
        let environment = try await environment()
        let (_, team, token) = try await castMember(environment)
        let serve = try await ServeProcess(environment: environment, arguments: ["--heartbeat", "1"])
        let stream = try RawConnection(port: serve.port)
        stream.get("/v1/teams/\(team)/events", headers: ["Authorization": "Bearer \(token.token)"])
        #expect(await stream.read(until: { $0.contains(": connected") }))
        let opened = ContinuousClock.now
        #expect(await stream.read(until: { $0.components(separatedBy: ": keep-alive").count - 1 >= 3 }, limit: .seconds(10)), "\(stream.text)")
        #expect(ContinuousClock.now - opened < .seconds(10))
        #expect(try await serve.stop() == 0)
    }

    /// Graceful shutdown as an operator sees it: the process, the signal, the exit status.
    @Test(
        "SIGTERM during a request: no new request is served, the one in flight is answered 201 once it can finish within --shutdown-grace, and taskserve exits 0"
    )
    func sigtermFinishesInFlight() async throws {
        try await TestDatabase.with(migrated: true, purpose: "taskserve sigterm") { database in
            var environment = TestDatabases.childEnvironment(database.config)
            environment["TASKBASE_TOKEN_KEY"] = Self.tokenKey
            environment["PATH"] = ProcessInfo.processInfo.environment["PATH"]
            let (_, team, token) = try await castMember(environment)
            // A grace and a lock wait longer than their defaults (10 s each), held for 12 s below:
            // the request is still answered, so both values took effect.
            let serve = try await ServeProcess(environment: environment, arguments: ["--shutdown-grace", "30", "--lock-timeout", "40s"])
            let client = HTTPClient(baseURL: serve.baseURL, token: token.token)
            // The request waits in its transaction: another session holds the team's counter.
            let blocker = try await database.holding("LOCK TABLE task_counters IN EXCLUSIVE MODE")
            let create = Task { try await client.send("POST", "/v1/teams/\(team)/tasks", json: #"{"title": "In flight at SIGTERM"}"#) }
            try await waitUntil("the request to wait on the counter", limit: .seconds(30), every: .milliseconds(20)) {
                try await database.lockWaiters() == 1
            }
            let stopping = Task { try await serve.stop() }
            try await waitUntil("taskserve to begin stopping") { serve.log.contains(#""stopping""#) }
            // Refused at once, not left to wait in the socket's queue for the grace to end.
            let lateStarted = ContinuousClock.now
            let late = try? await client.get("/healthz")
            #expect(late?.status != 200, "a request after SIGTERM was served")
            #expect(ContinuousClock.now - lateStarted < .seconds(5), "a connection after SIGTERM waited \(ContinuousClock.now - lateStarted)")
            try await Task.sleep(for: .seconds(12))
            try await blocker.execute("COMMIT")
            let answer = try await create.value
            #expect(answer.status == 201, "\(answer.status): \(answer.text)")
            #expect(try await stopping.value == 0, "\(serve.log)")
            #expect(serve.log.contains(#""stopped""#))
            let made = try await blocker.query("SELECT count(*)::int AS n FROM tasks WHERE title = 'In flight at SIGTERM'")[0].decode(Int.self, "n")
            #expect(made == 1)
            await blocker.close()
        }
    }

    @Test("taskctl token revoke stops the token at once in every taskserve process; a disabled user's tokens too")
    func revocationAcrossProcesses() async throws {
        let environment = try await environment()
        let (email, team, token) = try await castMember(environment)
        let first = try await ServeProcess(environment: environment), second = try await ServeProcess(environment: environment)
        for serve in [first, second] {
            #expect(try await HTTPClient(baseURL: serve.baseURL, token: token.token).get("/v1/me").status == 200)
        }
        #expect(try await taskctl(["token", "revoke", String(token.id)], environment).exitCode == 0)
        for serve in [first, second] {
            try await waitUntil("the revoked token to be refused") {
                try await HTTPClient(baseURL: serve.baseURL, token: token.token).get("/v1/me").status == 401
            }
        }
        let other = try await taskctl(["token", "create", email, "--json"], environment)
        let fresh = try WireJSON.makeDecoder().decode(NewTokenDocument.self, from: Data(other.standardOutput.utf8))
        #expect(try await HTTPClient(baseURL: first.baseURL, token: fresh.token).get("/v1/me").status == 200)
        // A team always keeps an enabled owner: a co-owner first, so the user may be disabled.
        let coOwner = "co." + email
        #expect(try await taskctl(["user", "add", coOwner, "--name", "Co-owner"], environment).exitCode == 0)
        #expect(try await taskctl(["team", "add-member", team, coOwner, "--as", email], environment).exitCode == 0)
        #expect(try await taskctl(["team", "set-role", team, coOwner, "owner", "--as", email], environment).exitCode == 0)
        let disabled = try await taskctl(["user", "disable", email], environment)
        #expect(disabled.exitCode == 0, "\(disabled.standardError)")
        try await waitUntil("the disabled user's token to be refused") {
            try await HTTPClient(baseURL: first.baseURL, token: fresh.token).get("/v1/me").status == 401
        }
        #expect(try await first.stop() == 0)
        #expect(try await second.stop(signal: SIGINT) == 0)
    }

    @Test("a token hashed under another TASKBASE_TOKEN_KEY is unknown")
    func keyMatters() async throws {
        let environment = try await environment()
        let (_, _, token) = try await castMember(environment)
        var otherKey = environment
        otherKey["TASKBASE_TOKEN_KEY"] = "another key"
        let serve = try await ServeProcess(environment: otherKey)
        #expect(try await HTTPClient(baseURL: serve.baseURL, token: token.token).get("/v1/me").status == 401)
        #expect(try await serve.stop() == 0)
    }

    @Test("two taskserve processes: a change made through one arrives on the other's event stream")
    func eventsAcrossProcesses() async throws {
        let environment = try await environment()
        let (_, team, token) = try await castMember(environment)
        let first = try await ServeProcess(environment: environment), second = try await ServeProcess(environment: environment)
        let port = second.port
        let stream = try RawConnection(port: port)
        stream.get("/v1/teams/\(team)/events", headers: ["Authorization": "Bearer \(token.token)"])
        #expect(await stream.read(until: { $0.contains(": connected") }))
        let created = try await HTTPClient(baseURL: first.baseURL, token: token.token).send(
            "POST", "/v1/teams/\(team)/tasks", json: #"{"title": "Across"}"#)
        #expect(created.status == 201)
        #expect(await stream.read(until: { _ in !stream.changeEvents().isEmpty }))
        #expect(stream.changeEvents().first?.data.contains(#""title":"Across""#) == true)
        #expect(try await first.stop() == 0)
        #expect(try await second.stop() == 0)
        #expect(await stream.readUntilClosed())
    }

    @Test("with --reuse-port two taskserve processes listen on one port and both serve; without it the second cannot start")
    func sharedPort() async throws {
        let environment = try await environment()
        let first = try await ServeProcess(environment: environment, arguments: ["--reuse-port"])
        let port = first.port
        let refused = await #expect(throws: ServeFailure.self) { try await ServeProcess(environment: environment, listen: "127.0.0.1:\(port)") }
        #expect(refused?.status == 3, "\(refused?.log ?? "")")
        // Exit 3 every time, never a crash: the token listener once started connecting before
        // the port was tried, and exiting under that connection crashed in libpq's cleanup
        // (SIGSEGV in about one start of forty).
        for _ in 1...10 {
            let again = try await BuiltProgram.run(
                BuiltProgram.url("taskserve"), arguments: ["--listen", "127.0.0.1:\(port)"], environment: environment)
            #expect(again.exitCode == 3, "\(again.standardError.prefix(2_000))")
        }
        let second = try await ServeProcess(environment: environment, listen: "127.0.0.1:\(port)", arguments: ["--reuse-port"])
        #expect(second.baseURL == first.baseURL)
        // Each request on a connection of its own: the kernel picks a listener per connection.
        for _ in 0..<40 {
            let connection = try RawConnection(port: port)
            connection.get("/healthz")
            #expect(await connection.read(until: { $0.hasPrefix("HTTP/1.1 200") && $0.hasSuffix("\n") }))
        }
        try await waitUntil("the access logs to be written") { first.accessLog.count + second.accessLog.count >= 40 }
        let (firstServed, secondServed) = (first.accessLog.count, second.accessLog.count)
        #expect(firstServed + secondServed == 40)
        // Both answered some (one of them getting all 40 by chance: 2 in 2^40).
        #expect(firstServed > 0 && secondServed > 0, "\(firstServed) and \(secondServed)")
        #expect(try await first.stop() == 0)
        #expect(try await second.stop() == 0)
    }
}
