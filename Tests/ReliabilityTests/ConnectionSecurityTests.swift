import PGStore
import TaskbaseTestSupport
import Testing

@Suite("TLS settings and secrets at the connection", .timeLimit(.minutes(3)))
struct ConnectionSecurityTests {
    /// Connects with `change` applied to the test server's config and returns the refusal.
    static func refusal(_ change: (inout PGConfig) -> Void) async throws -> PGError? {
        var config = try TestDatabases.admin()
        change(&config)
        return await #expect(throws: PGError.self) { try await PGConnection.with(config) { _ in } }
    }

    @Test("sslmode=require and verify-full reach libpq: a server without TLS is refused, with an error that says so")
    func sslModesPassThrough() async throws {
        for mode in ["require", "verify-full"] {
            let error = try await Self.refusal { config in
                config["sslmode"] = mode
                config["sslrootcert"] = "/nonexistent/taskbase-ca.pem"
            }
            #expect(error?.kind == .connection)
            #expect(error?.message.contains("SSL") == true, "\(mode): \(String(describing: error))")
        }
    }

    @Test("a refused password appears in no error text, and a config's description masks it")
    func passwordNeverShown() async throws {
        let secret = "s3cret-\(UInt32.random(in: 0...UInt32.max))"
        let error = try await Self.refusal { $0["password"] = secret }
        let texts = [error.map { String(describing: $0) } ?? "", error?.message ?? "", error?.detail ?? ""]
        #expect(error?.kind == .connection)
        #expect(texts.allSatisfy { !$0.contains(secret) })
        var config = try TestDatabases.admin()
        config["password"] = secret
        #expect(!config.description.contains(secret) && config.description.contains("password=***"))
        #expect(!PGConfig.mask("postgresql://u:\(secret)@h/db password=\(secret)").contains(secret))
    }

    @Test("scripts/pg mask hides what PGConfig.mask hides: unknown keys, an unencoded @ in a URI password, bare words")
    func scriptMasksTheSameShapes() async throws {
        let cases = [
            ("postgresql://taskbase:s3c@ret@127.0.0.1:5432/db", "postgresql://taskbase:***@127.0.0.1:5432/db"),
            ("postgres://h/db?user=a&passwd=s3cret&sslmode=require", "postgres://h/db?user=a&passwd=***&sslmode=require"),
            ("host=db passwd=s3cret user=alice", "host=db passwd=*** user=alice"),
            ("host=db s3cret user=alice", "host=db *** user=alice"),
            ("host=db password='s3 cret' port=5432", "host=db password=*** port=5432"),
        ]
        for (text, masked) in cases {
            #expect(try await Scripts.run("pg", ["mask", text]) == masked)
            #expect(PGConfig.mask(connectionString: text) == masked)
        }
    }
}
