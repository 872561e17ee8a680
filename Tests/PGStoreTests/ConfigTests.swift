import Foundation
import TaskbaseTestSupport
import Testing
@testable import PGStore

@Suite("Configuration")
struct ConfigTests {
    @Test("a postgres:// URI and a key=value string give the same parameters")
    func uriAndKeyValue() throws {
        let uri = try PGConfig(connectionString: "postgresql://alice:s3cret@db.example:6543/tasks?sslmode=require")
        let keyValue = try PGConfig(connectionString: "host=db.example port=6543 dbname=tasks user=alice password=s3cret sslmode=require")
        for key in ["host", "port", "dbname", "user", "password", "sslmode"] {
            #expect(uri[key] == keyValue[key], "\(key)")
        }
        #expect(uri["host"] == "db.example")
        #expect(uri["password"] == "s3cret")
    }

    @Test("the description masks the password")
    func descriptionMasks() throws {
        let config = try PGConfig(connectionString: "postgresql://alice:s3cret@localhost/tasks")
        #expect(!config.description.contains("s3cret"))
        #expect(config.description.contains("password=***"))
    }

    @Test("mask hides passwords in URIs, key=value strings and query parameters")
    func maskText() {
        let texts = [
            "postgresql://alice:s3cret@localhost/tasks",
            "host=x password=s3cret user=y",
            "host=x password='s3 cret' user=y",
            "postgres://h/db?user=a&password=s3cret",
        ]
        for text in texts {
            let masked = PGConfig.mask(text)
            #expect(!masked.contains("s3cret") && !masked.contains("s3 cret"), "\(masked)")
            #expect(masked.contains("***"))
        }
    }

    @Test("an unparseable connection string is a configuration error without the password")
    func badString() {
        #expect {
            _ = try PGConfig(connectionString: "postgresql://alice:s3cret@localhost:notaport/db?bogus_option=1")
        } throws: { error in
            let error = error as! PGError
            return error.kind == .configuration && !error.description.contains("s3cret")
        }
    }

    @Test("PG* variables are used when DATABASE_URL is absent, and DATABASE_URL wins over them")
    func environmentVariables() throws {
        let directory = try scratchFolder("pgconfig").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fromPG = try PGConfig.fromEnvironment(["PGHOST": "h1", "PGPORT": "5444", "PGUSER": "u1"], dotEnvDirectory: directory)
        #expect(fromPG["host"] == "h1" && fromPG["port"] == "5444" && fromPG["user"] == "u1")
        let both = try PGConfig.fromEnvironment(
            ["PGHOST": "h1", "PGUSER": "u1", "DATABASE_URL": "postgresql://u2@h2/db2"], dotEnvDirectory: directory)
        #expect(both["host"] == "h2" && both["user"] == "u2" && both["dbname"] == "db2")
    }

    @Test(".env supplies what the environment lacks and never overrides it")
    func dotEnv() throws {
        let directory = try scratchFolder("pgconfig").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try """
        # local settings
        export DATABASE_URL="postgresql://fromfile@filehost/filedb"
        PGAPPNAME='taskbase test'
        """.write(toFile: directory + "/.env", atomically: true, encoding: .utf8)
        let fileOnly = try PGConfig.fromEnvironment([:], dotEnvDirectory: directory)
        #expect(fileOnly["host"] == "filehost")
        #expect(fileOnly["application_name"] == "taskbase test")
        let overridden = try PGConfig.fromEnvironment(["DATABASE_URL": "postgresql://real@realhost/realdb"], dotEnvDirectory: directory)
        #expect(overridden["host"] == "realhost" && overridden["user"] == "real")
    }

    @Test("once the environment sets any connection variable, a .env's PG* and DATABASE_URL are all set aside, and the notice says so")
    func dotEnvNeverMixesWithTheEnvironment() throws {
        let directory = try scratchFolder("pgconfig").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "DATABASE_URL=postgresql://victim@evilhost/db\nPGPORT=6666\nTASKBASE_STATEMENT_CACHE=7\nTASKBASE_ACTOR=ann@example.com\n"
            .write(toFile: directory + "/.env", atomically: true, encoding: .utf8)
        var notices: [String] = []
        let config = try PGConfig.fromEnvironment(
            ["PGHOST": "realhost", "PGPASSWORD": "real-s3cret"], dotEnvDirectory: directory
        ) { notices.append($0) }
        #expect(config["host"] == "realhost" && config["port"] == nil && config["user"] == nil)
        #expect(config.statementCacheSize == 7)
        #expect(notices.count == 3, "\(notices)")
        #expect(notices.first?.hasPrefix("ignoring DATABASE_URL, PGPORT in \(directory)/.env: the environment sets PGHOST, PGPASSWORD") == true)
        #expect(notices.dropFirst().first == "reading TASKBASE_STATEMENT_CACHE from \(directory)/.env")
        // Once "reading TASKBASE_ACTOR, ..." though nothing read it: a .env gives the connection only.
        #expect(notices.last?.hasPrefix("not reading TASKBASE_ACTOR from \(directory)/.env: a .env gives the connection only") == true)
        #expect(!notices.joined().contains("real-s3cret") && !notices.joined().contains("evilhost"))
    }

    @Test("TASKBASE_STATEMENT_CACHE that is not a whole number of 0 or more is a configuration error naming it")
    func statementCacheSetting() throws {
        for bad in ["abc", "-1", "1.5"] {
            #expect {
                _ = try PGConfig.fromEnvironment(["DATABASE_URL": "host=h", "TASKBASE_STATEMENT_CACHE": bad], dotEnvDirectory: "/nonexistent")
            } throws: { error in
                let error = error as! PGError
                return error.kind == .configuration && error.description.contains("TASKBASE_STATEMENT_CACHE")
                    && error.description.contains("'\(bad)'")
            }
        }
        let off = try PGConfig.fromEnvironment(["DATABASE_URL": "host=h", "TASKBASE_STATEMENT_CACHE": "0"], dotEnvDirectory: "/nonexistent")
        #expect(off.statementCacheSize == 0)
    }

    @Test("masking hides unknown keys, an unencoded @ in a URI password and bare words of a key=value string")
    func maskWhatIsNotKnownSafe() throws {
        for text in [
            "host=x passwd=s3cret user=y", "host=x PASSWORD = 's3cret' user=y", "postgresql://alice:s3c@ret@db/tasks",
            "postgres://h/db?user=a&passwd=s3cret", "host=db sslpassword=s3cret",
        ] {
            #expect(!PGConfig.mask(text).contains("ret"), "\(PGConfig.mask(text))")
        }
        #expect(PGConfig.mask("postgresql://alice:s3c@ret@db/tasks") == "postgresql://alice:***@db/tasks")
        #expect(PGConfig.mask("host=db port=5432 dbname=tasks user=alice") == "host=db port=5432 dbname=tasks user=alice")
        #expect(PGConfig.mask(connectionString: "host=db s3cret user=alice") == "host=db *** user=alice")
        #expect {
            _ = try PGConfig(connectionString: "host=db s3cret user=alice")
        } throws: { error in
            !String(describing: error).contains("s3cret")
        }
        let config = PGConfig(parameters: [("host", "db"), ("sslpassword", "s3cret"), ("password", "s3cret")])
        #expect(config.description == "host=db sslpassword=*** password=***")
    }

    @Test("connect_timeout in the string sets the connect timeout")
    func connectTimeout() throws {
        let config = try PGConfig(connectionString: "host=localhost connect_timeout=3")
        #expect(config.connectTimeout == .seconds(3))
    }
}
