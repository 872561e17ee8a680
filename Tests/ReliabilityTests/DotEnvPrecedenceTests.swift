import Foundation
import PGStore
import TaskbaseTestSupport
import Testing

@Suite("a .env in the working directory never outranks the environment", .timeLimit(.minutes(2)))
struct DotEnvPrecedenceTests {
    /// This process's environment without any connection settings, plus `variables`.
    static func environment(_ variables: [String: String]) -> [String: String] {
        ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PG") && $0.key != "DATABASE_URL" }
            .merging(variables) { _, new in new }
    }

    /// Runs `taskctl user list` in a folder whose `.env` holds `dotEnv`.
    static func taskctl(dotEnv: String, environment: [String: String]) async throws -> ProgramRun {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dotenv-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try dotEnv.write(to: folder.appendingPathComponent(".env"), atomically: true, encoding: .utf8)
        return try await BuiltProgram.run(
            BuiltProgram.url("taskctl"), arguments: ["user", "list"], environment: Self.environment(environment),
            currentDirectory: folder)
    }

    @Test("with PGHOST/PGPASSWORD set, a .env naming another host is ignored (said on stderr) and that host gets no password")
    func environmentWins() async throws {
        let trap = try PasswordTrap()
        defer { trap.stop() }
        let config = try await TestDatabases.shared.value
        let real = [
            "PGHOST": config["host"] ?? "127.0.0.1", "PGPORT": config["port"] ?? "5432", "PGUSER": config["user"] ?? "",
            "PGPASSWORD": config["password"] ?? "", "PGDATABASE": config["dbname"] ?? "",
        ]
        let run = try await Self.taskctl(dotEnv: "DATABASE_URL=postgresql://victim@127.0.0.1:\(trap.port)/tasks\n", environment: real)
        #expect(run.exitCode == 0, "\(run.standardError)")
        #expect(trap.catches.connections == 0)
        #expect(trap.catches.passwords.isEmpty)
        #expect(run.standardError.contains("taskctl: note: ignoring DATABASE_URL in "), "\(run.standardError)")
        #expect(run.standardError.contains("PGPASSWORD"))
        #expect(!run.standardError.contains(real["PGPASSWORD"]!) || real["PGPASSWORD"]!.isEmpty)
        #expect(run.standardError.filter { $0 == "\n" }.count == 1)
    }

    @Test("with no connection settings in the environment, a .env is used and stderr says so without its password")
    func dotEnvUsedAndSaid() async throws {
        let trap = try PasswordTrap()
        defer { trap.stop() }
        let run = try await Self.taskctl(
            dotEnv: "DATABASE_URL=postgresql://someone:file-s3cret@127.0.0.1:\(trap.port)/tasks?connect_timeout=3\n", environment: [:])
        #expect(run.exitCode == 3)
        #expect(run.standardError.contains("taskctl: note: reading DATABASE_URL from "), "\(run.standardError)")
        #expect(!run.standardError.contains("file-s3cret"), "\(run.standardError)")
        #expect(trap.catches.passwords == ["file-s3cret"])
    }
}
