import Foundation
import Testing
@testable import PGStore
import TaskbaseTestSupport

@Suite("Connection, errors and cancellation")
struct ConnectionTests {
    @Test("SQL-looking strings are stored and read back verbatim, never executed")
    func injectionIsData() async throws {
        try await TestDatabase.withConnection { (connection: PGConnection) async throws -> Void in
            try await connection.execute("CREATE TEMP TABLE victims (name text)")
            let hostile = "Robert'); DROP TABLE victims;--"
            try await connection.execute("INSERT INTO victims (name) VALUES (\(hostile))")
            let rows = try await connection.query("SELECT name FROM victims WHERE name = \(hostile)")
            #expect(rows.count == 1)
            #expect(try rows[0].decode(String.self, "name") == hostile)
        }
    }

    @Test("a unique violation carries SQLSTATE 23505 and the constraint's name")
    func uniqueViolation() async throws {
        try await TestDatabase.withConnection { (connection: PGConnection) async throws -> Void in
            try await connection.execute("CREATE TEMP TABLE people (email text CONSTRAINT people_email_key UNIQUE)")
            try await connection.execute("INSERT INTO people VALUES (\("a@example.com"))")
            let error = await #expect(throws: PGError.self) {
                try await connection.execute("INSERT INTO people VALUES (\("a@example.com"))")
            }
            #expect(error?.sqlState == "23505")
            #expect(error?.code == .uniqueViolation)
            #expect(error?.constraint == "people_email_key")
            #expect(error?.table == "people")
            #expect(error?.detail?.contains("a@example.com") == true)
            #expect(try await connection.query("SELECT 1 AS one")[0].decode(Int.self, "one") == 1)
        }
    }

    @Test("a syntax error reports its position")
    func syntaxErrorPosition() async throws {
        try await TestDatabase.withConnection { (connection: PGConnection) async throws -> Void in
            let error = await #expect(throws: PGError.self) { try await connection.execute("SELECT 1 FROM WHERE") }
            #expect(error?.code == .syntaxError)
            #expect(error?.position == 15)
        }
    }

    @Test("NULL into a non-optional and text into Int are errors naming the column")
    func decodingErrors() async throws {
        try await TestDatabase.withConnection { (connection: PGConnection) async throws -> Void in
            let rows = try await connection.query("SELECT NULL::int AS missing, 'abc' AS word, 99999999999 AS big")
            let nullError = #expect(throws: PGError.self) { try rows[0].decode(Int.self, "missing") }
            #expect(nullError?.kind == .decoding && nullError?.decodingColumn == "missing")
            #expect(nullError?.description.contains("missing") == true)
            let textError = #expect(throws: PGError.self) { try rows[0].decode(Int.self, "word") }
            #expect(textError?.decodingColumn == "word")
            #expect(textError?.description.contains("abc") == true)
            let overflow = #expect(throws: PGError.self) { try rows[0].decode(Int32.self, "big") }
            #expect(overflow?.decodingColumn == "big")
            let noColumn = #expect(throws: PGError.self) { try rows[0].decode(Int.self, "nope") }
            #expect(noColumn?.description.contains("nope") == true)
        }
    }

    @Test("a throwing transaction leaves nothing; a rolled-back savepoint keeps the outer work")
    func transactions() async throws {
        struct Abort: Error {}
        try await TestDatabase.withConnection { (connection: PGConnection) async throws -> Void in
            try await connection.execute("CREATE TEMP TABLE ledger (n int)")
            await #expect(throws: Abort.self) {
                try await connection.withTransaction { tx in
                    try await tx.execute("INSERT INTO ledger VALUES (1)")
                    throw Abort()
                }
            }
            #expect(try await connection.query("SELECT count(*) AS c FROM ledger")[0].decode(Int.self, "c") == 0)
            #expect(connection.transactionStatus == .idle)

            try await connection.withTransaction { tx in
                try await tx.execute("INSERT INTO ledger VALUES (1)")
                await #expect(throws: Abort.self) {
                    try await tx.withSavepoint { inner in
                        try await inner.execute("INSERT INTO ledger VALUES (2)")
                        throw Abort()
                    }
                }
                try await tx.withSavepoint { inner in
                    try await inner.execute("INSERT INTO ledger VALUES (3)")
                }
            }
            let rows = try await connection.query("SELECT n FROM ledger ORDER BY n")
            #expect(try rows.map { try $0.decode(Int.self, "n") } == [1, 3])
        }
    }

    /// `config` aimed at a loopback listener that completes the TCP handshake and never answers.
    static func silent(_ silent: LoopbackSocket) throws -> PGConfig {
        var config = try TestDatabase.config()
        config["host"] = "127.0.0.1"
        config["hostaddr"] = nil
        config["port"] = "\(silent.port)"
        config["sslmode"] = "disable"
        config.connectTimeout = .seconds(120)
        return config
    }

    @Test("connecting to a server that never answers ends at once when the task is cancelled, not at the connect timeout")
    func cancelledWhileConnecting() async throws {
        let silent = LoopbackSocket(listening: true)
        defer { silent.close() }
        let config = try Self.silent(silent)
        let started = ContinuousClock.now
        let attempt = Task { try await PGConnection.connect(config) }
        try await Task.sleep(for: .milliseconds(300))
        attempt.cancel()
        let outcome = await attempt.result
        let elapsed = ContinuousClock.now - started
        #expect(throws: CancellationError.self) { try outcome.get() }
        // Far below the 120 s timeout, however loaded the machine.
        #expect(elapsed < .seconds(60), "took \(elapsed)")
    }

    @Test("a cancelled task's statement is cancelled although the first cancel request reached the session still reading it: the request goes again")
    func cancelSentAgain() async throws {
        try await TestDatabase.withConnection { (holder: PGConnection) async throws -> Void in
            try await TestDatabase.withConnection { (waiter: PGConnection) async throws -> Void in
                try await holder.execute("SELECT pg_advisory_lock(7311)")
                // 32 MB of parameter: the task, cancelled once libpq has its statement (a task
                // cancelled earlier sends none), sends its one cancel request while the session
                // still reads the statement, and the session ignores it.
                let padding = String(repeating: "x", count: 32 << 20)
                let statement: PGQuery = "SELECT pg_advisory_lock(7311), length(\(padding))"
                let started = ContinuousClock.now
                let work = Task {
                    try await waiter.withExclusiveUse {
                        try waiter.send(statement)
                        withUnsafeCurrentTask { $0?.cancel() }
                        return try await waiter.awaitSingleResult(timeout: .seconds(40), sql: statement.sql)
                    }
                }
                let outcome = await work.result
                let elapsed = ContinuousClock.now - started
                #expect {
                    try outcome.get()
                } throws: { error in
                    (error as? PGError)?.code == .queryCanceled && (error as? PGError)?.kind != .timeout
                }
                // Sent once only, the lock wait ran until the 40 s timeout.
                #expect(elapsed < .seconds(20), "took \(elapsed)")
            }
        }
    }

    @Test("work shielded from cancellation connects and runs although its task was cancelled, as settling a request's claim must")
    func shieldedWorkConnects() async throws {
        let config = try TestDatabase.config()
        let (cancelled, cancel) = AsyncStream.makeStream(of: Void.self)
        let work = Task {
            // Waits, in a task of its own (the stream would end on cancellation), to be cancelled.
            await Task { for await _ in cancelled { break } }.value
            // Cancelled, it cannot connect unshielded.
            await #expect(throws: CancellationError.self) { _ = try await PGConnection.connect(config) }
            return try await withCancellationShield { () async throws -> Int in
                let connection = try await PGConnection.connect(config)
                defer { Task { await connection.close() } }
                return try await connection.query("SELECT 1 AS one")[0].decode(Int.self, "one")
            }
        }
        work.cancel()
        cancel.yield()
        #expect(try await work.value == 1)
    }

    @Test("a transaction whose task is cancelled after its last statement commits nothing")
    func cancelledBeforeCommit() async throws {
        try await TestDatabase.withConnection { (connection: PGConnection) async throws -> Void in
            try await connection.execute("CREATE TEMP TABLE signalled (n int)")
            // The statement ran; the signal (the task's cancellation) came before COMMIT was sent.
            // Once the COMMIT went out anyway: a program stopped by SIGTERM committed after it.
            let outcome = await Task {
                try await connection.withTransaction { tx in
                    try await tx.execute("INSERT INTO signalled VALUES (1)")
                    withUnsafeCurrentTask { $0?.cancel() }
                }
            }.result
            #expect(throws: CancellationError.self) { try outcome.get() }
            #expect(try await connection.query("SELECT count(*) AS c FROM signalled")[0].decode(Int.self, "c") == 0)
            #expect(connection.transactionStatus == .idle)
        }
    }

    @Test("a failed statement inside a savepoint does not doom the outer transaction")
    func savepointAfterServerError() async throws {
        try await TestDatabase.withConnection { (connection: PGConnection) async throws -> Void in
            try await connection.execute("CREATE TEMP TABLE uniq (n int PRIMARY KEY)")
            try await connection.withTransaction { tx in
                try await tx.execute("INSERT INTO uniq VALUES (1)")
                await #expect(throws: PGError.self) {
                    try await tx.withSavepoint { inner in try await inner.execute("INSERT INTO uniq VALUES (1)") }
                }
                try await tx.execute("INSERT INTO uniq VALUES (2)")
            }
            #expect(try await connection.query("SELECT count(*) AS c FROM uniq")[0].decode(Int.self, "c") == 2)
        }
    }

    @Test("isolation level and SET LOCAL settings apply to the transaction only")
    func isolationAndSettings() async throws {
        try await TestDatabase.withConnection { (connection: PGConnection) async throws -> Void in
            let inside = try await connection.withTransaction(
                isolation: .serializable, settings: ["taskbase.user_id": "42", "statement_timeout": "5s"]
            ) { tx in
                try await tx.query(
                    """
                    SELECT current_setting('transaction_isolation') AS iso, current_setting('taskbase.user_id') AS uid,
                           current_setting('statement_timeout') AS st
                    """)
            }
            #expect(try inside[0].decode(String.self, "iso") == "serializable")
            #expect(try inside[0].decode(String.self, "uid") == "42")
            #expect(try inside[0].decode(String.self, "st") == "5s")
            let after = try await connection.query("SELECT current_setting('taskbase.user_id', true) AS uid")
            #expect(try after[0].decode(String?.self, "uid") ?? "" == "")
        }
    }

    @Test("a wrong password's error does not contain the password")
    func wrongPassword() async throws {
        var config = try TestDatabase.config()
        let secret = "wrong-\(UUID().uuidString)"
        config["password"] = secret
        let error = await #expect(throws: PGError.self) { _ = try await PGConnection.connect(config) }
        #expect(error?.kind == .connection)
        #expect(error.map { !"\($0)".contains(secret) && !$0.message.contains(secret) } == true)
        #expect(!config.description.contains(secret))
    }

    @Test("using one connection from two tasks at once is an error, not a race")
    func exclusiveUse() async throws {
        try await TestDatabase.withConnection { (connection: PGConnection) async throws -> Void in
            async let slow: Int = connection.execute("SELECT pg_sleep(0.3)")
            try await Task.sleep(for: .milliseconds(50))
            let error = await #expect(throws: PGError.self) { try await connection.execute("SELECT 1") }
            #expect(error?.kind == .client)
            _ = try await slow
        }
    }

    @Test("several statements in one simple query return each result")
    func simpleQuery() async throws {
        try await TestDatabase.withConnection { (connection: PGConnection) async throws -> Void in
            let results = try await connection.simpleQuery(unsafeSQL: "SELECT 1 AS a; SELECT 'x' AS b, 2 AS c;")
            #expect(results.count == 2)
            #expect(try results[1][0].decode(String.self, "b") == "x")
            let error = await #expect(throws: PGError.self) {
                try await connection.simpleQuery(unsafeSQL: "SELECT 1;\nSELECT nope FROM nowhere;")
            }
            #expect(error?.code == .undefinedTable)
        }
    }

    @Test("a NUL byte in a text parameter is refused before anything is sent, and the connection still works")
    func nulParameter() async throws {
        try await TestDatabase.withConnection { (connection: PGConnection) async throws -> Void in
            let error = await #expect(throws: PGError.self) { try await connection.query("SELECT \(1)::int, \("a\u{0}b")::text") }
            #expect(error?.kind == .invalidParameter)
            #expect(error?.message.contains("$2") == true)
            let pipelined = await #expect(throws: PGError.self) { try await connection.pipeline(["SELECT \("x\u{0}")::text"]) }
            #expect(pipelined?.kind == .invalidParameter)
            #expect(try await connection.query("SELECT \("a b")::text AS t")[0].decode(String.self, "t") == "a b")
        }
    }
}
