import Foundation
import PGStore

/// A login role made for one test, the way an attacker or a deployment holds one: with no
/// grants at all, or a member of given roles (`taskbase_app`: the runtime login every app
/// server has). Roles are cluster-wide, so the name is unique; it is dropped afterwards.
public struct TestLogin: Sendable {
    /// The role's name.
    public let name: String
    /// Its password.
    public let password: String

    /// Creates the login, a member of `roles`, runs `body`, and drops it whatever `body` did.
    public static func with<T>(memberOf roles: [String] = [], _ body: (TestLogin) async throws -> T) async throws -> T {
        let login = TestLogin(name: "taskbase_test_login_\(UUID().uuidString.prefix(8).lowercased())", password: UUID().uuidString)
        let grants = roles.map { "GRANT \(PGQuery.quoteIdentifier($0)) TO \(login.name);" }.joined()
        try await PGConnection.with(try TestDatabases.admin()) { connection in
            _ = try await connection.simpleQuery(unsafeSQL: "CREATE ROLE \(login.name) LOGIN PASSWORD '\(login.password)'; \(grants)")
        }
        do {
            let value = try await body(login)
            try await login.drop()
            return value
        } catch {
            try? await login.drop()
            throw error
        }
    }

    /// Drops the role once its sessions are gone. A session the test closed may still be
    /// exiting, its temporary tables not yet dropped, and they hold the role (2BP01): so its
    /// backends are waited for, and the drop is tried again for a while.
    private func drop() async throws {
        try await PGConnection.with(try TestDatabases.admin()) { connection in
            _ = try await connection.query(
                "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE usename = \(name) AND pid <> pg_backend_pid()")
            for attempt in 1... {
                do {
                    _ = try await connection.execute(PGQuery(unsafeSQL: "DROP ROLE IF EXISTS \(name)"))
                    return
                } catch let error as PGError where error.sqlState == "2BP01" && attempt < 50 {
                    try await Task.sleep(for: .milliseconds(100))
                }
            }
        }
    }

    /// `database` reached with this login.
    public func config(for database: PGConfig) -> PGConfig {
        var config = database
        config["user"] = name
        config["password"] = password
        return config
    }
}
