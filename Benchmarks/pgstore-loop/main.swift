import Foundation
import PGStore

// Point-query loop over one connection: the PGStore side of the libpq C reference
// (Benchmarks/reference/point_loop.c). Usage: pgstore-loop COUNT  (connection from DATABASE_URL)
let count = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 20_000 : 20_000
let connection = try await PGConnection.connect(PGConfig.fromEnvironment())
let started = ContinuousClock.now
for index in 0..<count {
    let rows = try await connection.query("SELECT \(index)::int8 AS n, \("text \(index)") AS t")
    _ = try rows[0].decode(Int.self, at: 0)
}
let elapsed = ContinuousClock.now - started
let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
print(String(format: "PGStore: %d queries in %.3f s = %.0f q/s", count, seconds, Double(count) / seconds))
await connection.close()
