import Foundation
import PGStore

// Batch paths of PGStore, for the performance issue's W3 and W6.
// Usage (connection from DATABASE_URL):
//   pgstore-batch pipeline COUNT   COUNT inserts in one pipeline
//   pgstore-batch copy COUNT       COUNT rows by COPY FROM STDIN
//   pgstore-batch single COUNT     COUNT inserts one round trip each, in one transaction
//   pgstore-batch pool SECONDS [TASKS]   TASKS (64) tasks doing point reads on a pool of 8
let arguments = CommandLine.arguments
let mode = arguments.count > 1 ? arguments[1] : "pipeline"
let amount = arguments.count > 2 ? Int(arguments[2]) ?? 20_000 : 20_000
let config = try PGConfig.fromEnvironment()

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

func freshTable(_ connection: PGConnection) async throws {
    try await connection.execute("DROP TABLE IF EXISTS bench_items")
    try await connection.execute("CREATE TABLE bench_items (id int8 PRIMARY KEY, title text NOT NULL, note text)")
}

switch mode {
case "pipeline", "copy", "single":
    let connection = try await PGConnection.connect(config)
    try await freshTable(connection)
    let started = ContinuousClock.now
    switch mode {
    case "pipeline":
        let queries: [PGQuery] = (0..<amount).map { "INSERT INTO bench_items VALUES (\($0), \("task \($0)"), \(Optional<String>.none))" }
        let results = try await connection.pipeline(queries)
        if let failure = results.firstFailure { throw failure.error }
    case "copy":
        try await connection.copyIn(table: "bench_items", columns: ["id", "title", "note"], format: .text) { writer in
            for index in 0..<amount { try await writer.writeRow([String(index), "task \(index)", nil]) }
        }
    default:
        try await connection.withTransaction { tx in
            for index in 0..<amount {
                try await tx.execute("INSERT INTO bench_items VALUES (\(index), \("task \(index)"), \(Optional<String>.none))")
            }
        }
    }
    let elapsed = seconds(ContinuousClock.now - started)
    print(String(format: "PGStore %@: %d rows in %.3f s = %.0f rows/s", mode, amount, elapsed, Double(amount) / elapsed))
    try await connection.execute("DROP TABLE bench_items")
    await connection.close()
case "pool":
    let pool = PGPool(config: config, options: PGPoolOptions(maxConnections: 8))
    let clients = arguments.count > 3 ? Int(arguments[3]) ?? 64 : 64
    let deadline = ContinuousClock.now + .seconds(amount)
    let started = ContinuousClock.now
    let total = try await withThrowingTaskGroup(of: Int.self) { group in
        for client in 0..<clients {
            group.addTask {
                var done = 0
                while ContinuousClock.now < deadline {
                    let rows = try await pool.withConnection { try await $0.query("SELECT \(client * 1_000_000 + done)::int8 AS n") }
                    _ = try rows[0].decode(Int.self, at: 0)
                    done += 1
                }
                return done
            }
        }
        var total = 0
        for try await done in group { total += done }
        return total
    }
    let elapsed = seconds(ContinuousClock.now - started)
    print(String(format: "PGStore pool %d tasks / 8 connections: %d queries in %.3f s = %.0f q/s (%@)",
                 clients, total, elapsed, Double(total) / elapsed, pool.statistics.description))
    await pool.shutdown()
default:
    print("usage: pgstore-batch pipeline|copy|single COUNT | pool SECONDS")
}
