import Foundation
import PGStore

// Proves a round trip through PGStore: connect with the configuration the programs use
// (DATABASE_URL / PG* / .env), write a row with awkward text through bind parameters,
// read it back, and say what server answered. Exit 3 when the server cannot be reached.
do {
    let config = try PGConfig.fromEnvironment()
    let connection = try await PGConnection.connect(config)
    let sample = "Robert'); DROP TABLE tasks;-- ✓ 👩‍💻"
    let today = PGDate(daysSinceEpoch: Int(Date().timeIntervalSince1970 / 86_400))
    let rows = try await connection.withTransaction { tx in
        try await tx.execute("CREATE TEMP TABLE roundtrip (title text, due date, made timestamptz) ON COMMIT DROP")
        try await tx.execute("INSERT INTO roundtrip VALUES (\(sample), \(today), now())")
        return try await tx.query("SELECT title, due, made, version() AS server FROM roundtrip")
    }
    let title = try rows[0].decode(String.self, "title")
    print("connected: \(config)")
    print("server:    \(try rows[0].decode(String.self, "server"))")
    print("wrote:     \(sample) (due \(today))")
    print("read back: \(title) (due \(try rows[0].decode(PGDate.self, "due")))")
    print(title == sample ? "round trip: OK" : "round trip: MISMATCH")
    await connection.close()
    exit(title == sample ? 0 : 1)
} catch let error as PGError {
    FileHandle.standardError.write(Data("pgstore-roundtrip: error: \(error)\n".utf8))
    exit(error.kind == .connection || error.kind == .configuration || error.kind == .timeout ? 3 : 1)
}
