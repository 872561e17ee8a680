import Foundation
import PGStore

// Point-query loop over one connection: the PGStore side of the libpq C reference
// (Benchmarks/reference/point_loop.c). Usage: pgstore-loop COUNT [--no-cache]
// (connection from DATABASE_URL; --no-cache turns the prepared-statement cache off).

/// The loop, off the main actor: top-level code is main-actor code, and every call from it
/// into the (nonisolated) connection would cost two thread hops that a service never pays.
func pointLoop(count: Int, cached: Bool) async throws -> Duration {
    var config = try PGConfig.fromEnvironment()
    if !cached { config.statementCacheSize = 0 }
    let connection = try await PGConnection.connect(config)
    let started = ContinuousClock.now
    for index in 0..<count {
        let rows = try await connection.query("SELECT \(index)::int8 AS n, \("text \(index)") AS t")
        _ = try rows[0].decode(Int.self, at: 0)
    }
    let elapsed = ContinuousClock.now - started
    await connection.close()
    return elapsed
}

let count = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 20_000 : 20_000
let cached = !CommandLine.arguments.contains("--no-cache")
let elapsed = try await pointLoop(count: count, cached: cached)
let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
print(String(format: "PGStore%@: %d queries in %.3f s = %.0f q/s", cached ? " (statement cache)" : " (no cache)", count, seconds, Double(count) / seconds))
