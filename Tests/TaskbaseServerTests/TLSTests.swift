import Foundation
import TaskCore
import TaskbaseServer
import TaskbaseTestSupport
import Testing

@testable import taskserve

/// A self-signed certificate for 127.0.0.1 and its key, made by the openssl program into a
/// fresh directory, and curl (which can trust that one certificate) as the HTTPS client.
struct TestCertificate {
    let directory: URL
    var certificate: String { directory.appendingPathComponent("cert.pem").path }
    var key: String { directory.appendingPathComponent("key.pem").path }

    static func make() async throws -> TestCertificate {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("taskbase-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let made = TestCertificate(directory: directory)
        try await made.openssl([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2", "-subj", "/CN=localhost",
            "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost", "-keyout", made.key, "-out", made.certificate,
        ])
        return made
    }

    /// Runs openssl with `arguments`, failing the test when it fails.
    func openssl(_ arguments: [String]) async throws {
        let run = try await BuiltProgram.run(URL(fileURLWithPath: "/usr/bin/openssl"), arguments: arguments, environment: [:])
        try #require(run.exitCode == 0, "openssl \(arguments.joined(separator: " ")): \(run.standardError)")
    }

    /// curl trusting only this certificate: the status (0 when no HTTP answer came), the body,
    /// and curl's exit code (35: the TLS handshake failed).
    func curl(_ url: String, _ extra: [String] = []) async throws -> (status: Int, body: String, exitCode: Int32) {
        let run = try await BuiltProgram.run(
            URL(fileURLWithPath: "/usr/bin/curl"),
            arguments: ["-sS", "--max-time", "10", "--cacert", certificate, "-w", "\n%{http_code}"] + extra + [url], environment: [:])
        let lines = run.standardOutput.split(separator: "\n", omittingEmptySubsequences: false)
        return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"), run.exitCode)
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }
}

@Suite("HTTPS: --tls-cert and --tls-key")
struct TLSTests {
    @Test("a certificate and key are checked before serving: not PEM, a key under a passphrase, or another's key is named")
    func pairChecks() async throws {
        let made = try await TestCertificate.make()
        defer { made.remove() }
        let other = try await TestCertificate.make()
        defer { other.remove() }
        #expect(throws: Never.self) { try HTTPServerTLS.load(certificatePath: made.certificate, keyPath: made.key) }
        func refusal(_ certificate: String, _ key: String) -> String {
            do {
                _ = try HTTPServerTLS.load(certificatePath: certificate, keyPath: key)
                return "accepted"
            } catch {
                return error.description
            }
        }
        #expect(refusal(made.certificate, other.key).contains("the key is not the certificate's private key"))
        #expect(refusal(made.key, made.key).contains("not a PEM certificate"))
        #expect(refusal(made.certificate, made.certificate).contains("not an unencrypted PEM private key"))
        #expect(
            refusal(made.certificate, "/nonexistent/key.pem")
                == "cannot read the key /nonexistent/key.pem: no such file, or not readable by this user")
        // A key under a passphrase is refused, never prompted for (the test would hang).
        let locked = made.directory.appendingPathComponent("locked.pem").path
        try await made.openssl(["pkey", "-in", made.key, "-aes256", "-passout", "pass:secret", "-out", locked])
        #expect(refusal(made.certificate, locked).contains("not an unencrypted PEM private key"))
    }

    @Test("over HTTPS a token works, a write lands and an event stream opens; plain HTTP and TLS 1.1 get no answer")
    func serves() async throws {
        let made = try await TestCertificate.make()
        defer { made.remove() }
        let f = try await ServerFixture.start(tls: try HTTPServerTLS.load(certificatePath: made.certificate, keyPath: made.key))
        #expect(f.server.baseURL.hasPrefix("https://127.0.0.1:"))
        let bearer = ["-H", "Authorization: Bearer \(try #require(f.tokens["member"]))"]
        let me = try await made.curl(f.server.baseURL + "/v1/me", bearer)
        #expect(me.status == 200 && me.body.contains(f.member.email), "\(me)")
        let created = try await made.curl(
            f.server.baseURL + "/v1/teams/\(f.team.rawValue)/tasks",
            bearer + ["-H", "Content-Type: application/json", "-d", #"{"title":"Over TLS"}"#])
        #expect(created.status == 201, "\(created)")
        #expect(try await f.service.listTasks(in: f.team, as: .id(f.member.id)).tasks.map(\.title) == ["Over TLS"])
        // The stream's first bytes arrive through TLS; curl then gives up at its time limit (28).
        let stream = try await made.curl(f.server.baseURL + "/v1/teams/\(f.team.rawValue)/events", bearer + ["-N", "--max-time", "2"])
        #expect(stream.body.contains(": connected"), "\(stream)")
        let plain = try await made.curl("http://" + HTTPServer.authority(f.server.http.host, f.server.http.port) + "/healthz")
        #expect(plain.status == 0 && plain.exitCode != 0, "\(plain)")
        let old = try await made.curl(f.server.baseURL + "/healthz", ["--tlsv1.1", "--tls-max", "1.1"])
        #expect(old.status == 0 && old.exitCode != 0, "\(old)")
        await f.stop()
    }

    @Test("plain HTTP on an address others reach is warned about unless a trusted proxy is named; a readable key is too")
    func transportWarnings() async throws {
        #expect(TaskServe.transportWarning(host: "127.0.0.1", tls: nil, keyPath: nil, proxies: .none) == nil)
        #expect(TaskServe.transportWarning(host: "::1", tls: nil, keyPath: nil, proxies: .none) == nil)
        #expect(TaskServe.transportWarning(host: "0.0.0.0", tls: nil, keyPath: nil, proxies: .none)?.contains("in the clear") == true)
        #expect(TaskServe.transportWarning(host: "::", tls: nil, keyPath: nil, proxies: .none)?.contains("in the clear") == true)
        #expect(TaskServe.transportWarning(host: "0.0.0.0", tls: nil, keyPath: nil, proxies: try TrustedProxies(parsing: "10.0.0.0/8")) == nil)
        let made = try await TestCertificate.make()
        defer { made.remove() }
        let tls = try HTTPServerTLS.load(certificatePath: made.certificate, keyPath: made.key)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: made.key)
        #expect(TaskServe.transportWarning(host: "0.0.0.0", tls: tls, keyPath: made.key, proxies: .none) == nil)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: made.key)
        #expect(TaskServe.transportWarning(host: "0.0.0.0", tls: tls, keyPath: made.key, proxies: .none)?.contains("chmod 600") == true)
    }

    @Test("taskserve: --tls-cert without --tls-key, or a file missing, is exit 2 before the database is tried; with both it listens on https")
    func program() async throws {
        let made = try await TestCertificate.make()
        defer { made.remove() }
        let alone = try await TaskserveProcessTests.offline(["--tls-cert", made.certificate])
        #expect(alone.exitCode == 2 && alone.standardError.contains("--tls-cert and --tls-key go together"), "\(alone.standardError)")
        let missing = try await TaskserveProcessTests.offline(["--tls-cert", made.certificate, "--tls-key", made.key + ".gone"])
        #expect(missing.exitCode == 2 && missing.standardError.contains("cannot read the key"), "\(missing.standardError)")
        var environment = TestDatabases.childEnvironment(try await TestDatabases.shared.value)
        environment["TASKBASE_TLS_CERT"] = made.certificate
        environment["TASKBASE_TLS_KEY"] = made.key
        let serve = try await ServeProcess(environment: environment)
        #expect(serve.baseURL.hasPrefix("https://127.0.0.1:"), "\(serve.log)")
        #expect(try await made.curl(serve.baseURL + "/healthz").status == 200)
        #expect(try await serve.stop() == 0)
    }
}
