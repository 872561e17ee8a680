import Foundation
import TaskbaseTestSupport
import Testing
@testable import PGStore

/// A task that is already cancelled sends no new work to the server: its call throws
/// `CancellationError` instead of sending a statement and then cancelling it (a fast one would
/// run to its end first). The tests use a sequence, which no rollback undoes: a statement that
/// ran at all leaves it advanced.
@Suite("Cancelled tasks send nothing new")
struct CancelledCallerTests {
    /// Each way a statement reaches the server.
    enum Call: String, CaseIterable, CustomTestStringConvertible, Sendable {
        /// A first `query`: prepared and executed in one pipeline.
        case query
        /// A `query` found in the statement cache: the prepared statement executed alone.
        case cachedQuery
        /// A statement the cache never holds, sent as the unnamed statement.
        case uncachedStatement
        case simpleQuery
        case pipeline
        /// `copyIn` called by the cancelled task.
        case copyIn
        /// `copyIn` whose task is cancelled while its feed writes rows.
        case copyInFeed
        case transaction

        var testDescription: String { rawValue }
    }

    /// The sequence's last value handed out, 0 when none was.
    static func lastValue(_ connection: PGConnection) async throws -> Int {
        try await connection.query("SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS n FROM untouched")[0].decode(Int.self, "n")
    }

    static let advance: PGQuery = "SELECT nextval('untouched') AS n"

    /// Runs `call` as a task that cancels itself first (or, for `copyInFeed`, while feeding).
    static func cancelled(_ call: Call, on connection: PGConnection) async -> Result<Void, any Error> {
        await Task {
            if call != .copyInFeed { withUnsafeCurrentTask { $0?.cancel() } }
            switch call {
            case .query, .cachedQuery:
                _ = try await connection.query(advance)
            case .uncachedStatement:
                // DO is not a statement the cache prepares.
                try await connection.execute("DO $$ BEGIN PERFORM nextval('untouched'); END $$")
            case .simpleQuery:
                try await connection.simpleQuery(unsafeSQL: "SELECT nextval('untouched')")
            case .pipeline:
                _ = try await connection.pipeline([advance, advance])
            case .copyIn, .copyInFeed:
                try await connection.copyIn(table: "numbered", columns: ["name"]) { writer in
                    try await writer.writeRow(["first"])
                    if call == .copyInFeed { withUnsafeCurrentTask { $0?.cancel() } }
                    try await writer.writeRow(["second"])
                }
            case .transaction:
                try await connection.withTransaction { tx in _ = try await tx.query(advance) }
            }
        }.result
    }

    @Test(
        "a call by a task already cancelled throws CancellationError and never reaches the server: a sequence it would advance stays put",
        arguments: Call.allCases)
    func cancelledBeforeSending(call: Call) async throws {
        try await TestDatabase.withConnection { (connection: PGConnection) async throws -> Void in
            try await connection.execute("CREATE TEMP SEQUENCE untouched")
            try await connection.execute("CREATE TEMP TABLE numbered (n bigint DEFAULT nextval('untouched'), name text)")
            if call == .cachedQuery { _ = try await connection.query(Self.advance) }
            let before = try await Self.lastValue(connection)
            let outcome = await Self.cancelled(call, on: connection)
            #expect(throws: CancellationError.self) { try outcome.get() }
            #expect(try await Self.lastValue(connection) == before)
            // The connection is as it was: the next statement works, no transaction is open.
            #expect(try await connection.query(Self.advance)[0].decode(Int.self, "n") == before + 1)
            #expect(connection.transactionStatus == .idle)
            #expect(connection.transactionDepth == 0)
        }
    }

    @Test("a transaction whose task is cancelled between two statements sends no second statement, rolls back, and leaves the connection usable")
    func cancelledBetweenStatements() async throws {
        try await TestDatabase.withConnection { (connection: PGConnection) async throws -> Void in
            try await connection.execute("CREATE TEMP SEQUENCE untouched")
            try await connection.execute("CREATE TEMP TABLE numbered (n bigint DEFAULT nextval('untouched'), name text)")
            let outcome = await Task {
                try await connection.withTransaction { tx in
                    try await tx.execute("INSERT INTO numbered (name) VALUES ('first')")
                    withUnsafeCurrentTask { $0?.cancel() }
                    _ = try await tx.query(Self.advance)
                }
            }.result
            #expect(throws: CancellationError.self) { try outcome.get() }
            // The INSERT took 1; the second statement would have taken 2.
            #expect(try await Self.lastValue(connection) == 1)
            #expect(connection.transactionStatus == .idle)
            #expect(connection.transactionDepth == 0)
            #expect(try await connection.query("SELECT count(*) AS c FROM numbered")[0].decode(Int.self, "c") == 0)
            #expect(try await connection.query(Self.advance)[0].decode(Int.self, "n") == 2)
        }
    }

    @Test("a cancelled task takes no connection from the pool, and one due a health check is not dropped for it")
    func poolCheckoutWhenCancelled() async throws {
        let sequence = "pool_untouched_\(UUID().uuidString.prefix(8).lowercased())"
        let handedOut = PGQuery(unsafeSQL: "SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS n FROM \(sequence)")
        let pool = PGPool(config: try TestDatabase.config(), options: PGPoolOptions(maxConnections: 1, healthCheckAfterIdle: .zero))
        try await pool.withConnection { connection in try await connection.execute(PGQuery(unsafeSQL: "CREATE SEQUENCE \(sequence)")) }
        let outcome = await Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await pool.withConnection { connection in
                try await connection.query(PGQuery(unsafeSQL: "SELECT nextval('\(sequence)') AS n"))[0].decode(Int.self, "n")
            }
        }.result
        #expect(throws: CancellationError.self) { try outcome.get() }
        let statistics = pool.statistics
        #expect(statistics.created == 1 && statistics.discarded == 0 && statistics.idle == 1, "\(statistics)")
        let after = try await pool.withConnection { connection in try await connection.query(handedOut)[0].decode(Int.self, "n") }
        #expect(after == 0)
        try await pool.withConnection { connection in try await connection.execute(PGQuery(unsafeSQL: "DROP SEQUENCE \(sequence)")) }
        await pool.shutdown()
    }
}
