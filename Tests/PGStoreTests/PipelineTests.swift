import Foundation
import Testing
@testable import PGStore
import TaskbaseTestSupport

@Suite("Pipeline mode and the statement cache")
struct PipelineTests {
    @Test("a pipeline of 1,000 inserts returns 1,000 results in order")
    func thousandInserts() async throws {
        try await TestDatabase.withConnection { (connection: PGConnection) async throws -> Void in
            try await connection.execute("CREATE TEMP TABLE piped (n int PRIMARY KEY, label text)")
            let queries: [PGQuery] = (0..<1_000).map { "INSERT INTO piped VALUES (\($0), \("row \($0)")) RETURNING n" }
            let results = try await connection.pipeline(queries)
            #expect(results.count == 1_000)
            #expect(results.firstFailure == nil)
            let returned = try results.map { try $0.get()[0].decode(Int.self, "n") }
            #expect(returned == Array(0..<1_000))
            #expect(try await connection.query("SELECT count(*) AS c FROM piped")[0].decode(Int.self, "c") == 1_000)
        }
    }

    @Test("a failing statement is reported with its index, what follows is not executed, and the batch is rolled back")
    func failureInTheMiddle() async throws {
        try await TestDatabase.withConnection { (connection: PGConnection) async throws -> Void in
            try await connection.execute("CREATE TEMP TABLE piped (n int PRIMARY KEY)")
            let queries: [PGQuery] = (0..<100).map { "INSERT INTO piped VALUES (\($0 == 60 ? 10 : $0))" }
            let results = try await connection.pipeline(queries)
            let failure = try #require(results.firstFailure)
            #expect(failure.index == 60)
            #expect(failure.error.code == .uniqueViolation)
            for (index, result) in results.enumerated() {
                switch result {
                case .rows: #expect(index < 60)
                case .failed: #expect(index == 60)
                case .notExecuted: #expect(index > 60)
                }
            }
            #expect(try await connection.query("SELECT count(*) AS c FROM piped")[0].decode(Int.self, "c") == 0)
            #expect(connection.transactionStatus == .idle)
        }
    }

    @Test("a batch far larger than the socket buffers, both ways, does not deadlock")
    func largeBatch() async throws {
        try await TestDatabase.withConnection { (connection: PGConnection) async throws -> Void in
            let blob = String(repeating: "y", count: 20_000)
            let queries: [PGQuery] = (0..<400).map { "SELECT \($0)::int AS n, \(blob) || repeat('x', 20000) AS body" }
            let results = try await connection.pipeline(queries, timeout: .seconds(30))
            #expect(results.count == 400)
            #expect(try results.last?.get()[0].decode(String.self, "body").count == 40_000)
            #expect(try results.map { try $0.get()[0].decode(Int.self, "n") } == Array(0..<400))
        }
    }

    @Test("a pipeline inside a transaction commits with it")
    func insideTransaction() async throws {
        try await TestDatabase.withConnection { (connection: PGConnection) async throws -> Void in
            try await connection.execute("CREATE TEMP TABLE piped (n int)")
            try await connection.withTransaction { tx in
                _ = try await tx.pipeline((0..<10).map { "INSERT INTO piped VALUES (\($0))" })
                #expect(tx.transactionStatus == .inTransaction)
            }
            #expect(try await connection.query("SELECT count(*) AS c FROM piped")[0].decode(Int.self, "c") == 10)
        }
    }

    @Test("repeated statements are prepared once per connection, and the least recently used are deallocated")
    func statementCache() async throws {
        var config = try TestDatabase.config()
        config.statementCacheSize = 3
        let connection = try await PGConnection.connect(config)
        defer { Task { await connection.close() } }
        for round in 0..<3 {
            #expect(try await connection.query("SELECT \(round)::int AS n")[0].decode(Int.self, "n") == round)
        }
        let prepared = "SELECT statement FROM pg_prepared_statements ORDER BY prepare_time"
        #expect(try await connection.simpleQuery(unsafeSQL: prepared)[0].count == 1)
        for letter in ["a", "b", "c", "d"] {
            _ = try await connection.query(PGQuery(unsafeSQL: "SELECT '\(letter)' AS letter"))
        }
        let statements = try await connection.simpleQuery(unsafeSQL: prepared)[0].map { try $0.decode(String.self, "statement") }
        #expect(statements == ["SELECT 'b' AS letter", "SELECT 'c' AS letter", "SELECT 'd' AS letter"])
    }

    @Test("with a cache size of 0 nothing is prepared (PgBouncer transaction mode)")
    func cacheOff() async throws {
        var config = try TestDatabase.config()
        config.statementCacheSize = 0
        let connection = try await PGConnection.connect(config)
        defer { Task { await connection.close() } }
        for round in 0..<3 { _ = try await connection.query("SELECT \(round)::int AS n") }
        _ = try await connection.pipeline(["SELECT 1", "SELECT 1"])
        let count = try await connection.query("SELECT count(*) AS c FROM pg_prepared_statements")
        #expect(try count[0].decode(Int.self, "c") == 0)
    }

    @Test("a cached statement survives DEALLOCATE ALL and a column added under SELECT *")
    func staleStatements() async throws {
        try await TestDatabase.withConnection { (connection: PGConnection) async throws -> Void in
            try await connection.execute("CREATE TEMP TABLE shapes (a int)")
            try await connection.execute("INSERT INTO shapes VALUES (1)")
            let select: PGQuery = "SELECT * FROM shapes WHERE a = \(1)"
            #expect(try await connection.query(select).columns == ["a"])
            try await connection.simpleQuery(unsafeSQL: "DEALLOCATE ALL")
            #expect(try await connection.query(select).columns == ["a"])
            try await connection.execute("ALTER TABLE shapes ADD COLUMN b text")
            #expect(try await connection.query(select).columns == ["a", "b"])
        }
    }

    @Test("a syntax error in a statement's first use is reported and not cached")
    func badStatementNotCached() async throws {
        try await TestDatabase.withConnection { (connection: PGConnection) async throws -> Void in
            for _ in 0..<2 {
                let error = await #expect(throws: PGError.self) { try await connection.query("SELECT FROM WHERE \(1)") }
                #expect(error?.code == .syntaxError)
            }
            #expect(try await connection.query("SELECT 1 AS one")[0].decode(Int.self, "one") == 1)
        }
    }
}
