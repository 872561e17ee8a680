import Foundation
import PGStore

/// The database the suite runs against: `DATABASE_URL`, as `scripts/test` sets it.
enum TestDatabase {
    struct NotConfigured: Error, CustomStringConvertible {
        var description: String { "DATABASE_URL is not set: run the tests with scripts/test" }
    }

    static func config() throws -> PGConfig {
        guard ProcessInfo.processInfo.environment["DATABASE_URL"] != nil else { throw NotConfigured() }
        return try PGConfig.fromEnvironment()
    }

    /// Runs `body` with a fresh connection, closing it afterwards.
    static func withConnection<T>(_ body: (PGConnection) async throws -> T) async throws -> T {
        let connection = try await PGConnection.connect(config())
        do {
            let value = try await body(connection)
            await connection.close()
            return value
        } catch {
            await connection.close()
            throw error
        }
    }
}

/// Resident memory of this process, in bytes.
func residentMemory() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    return (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE)))
}
