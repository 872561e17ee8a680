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
        let drop = PGQuery(unsafeSQL: "DROP ROLE IF EXISTS \(login.name)")
        do {
            let value = try await body(login)
            try await PGConnection.with(try TestDatabases.admin()) { try await $0.execute(drop) }
            return value
        } catch {
            _ = try? await PGConnection.with(try TestDatabases.admin()) { try await $0.execute(drop) }
            throw error
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
