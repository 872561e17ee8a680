import Foundation
import PGStore
import TaskbaseTestSupport

/// A login role made for one test (roles are cluster-wide, so the name is unique) and dropped
/// afterwards.
struct TestRole {
    let name: String
    let password: String

    static func create(attributes: String, memberOf group: String?) async throws -> TestRole {
        let role = TestRole(name: "taskmigrate_role_\(UUID().uuidString.prefix(8).lowercased())", password: UUID().uuidString)
        let grant = group.map { "; GRANT \($0) TO \(role.name)" } ?? ""
        try await PGConnection.with(try TestDatabases.admin()) { connection in
            _ = try await connection.simpleQuery(unsafeSQL: "CREATE ROLE \(role.name) LOGIN PASSWORD '\(role.password)' \(attributes)\(grant)")
        }
        return role
    }

    /// Runs `body`, then drops the role whatever `body` did (it must own nothing by then).
    func dropAfter(_ body: () async throws -> Void) async throws {
        let drop = PGQuery(unsafeSQL: "DROP ROLE IF EXISTS \(name)")
        do {
            try await body()
        } catch {
            _ = try? await PGConnection.with(try TestDatabases.admin()) { try await $0.execute(drop) }
            throw error
        }
        _ = try await PGConnection.with(try TestDatabases.admin()) { try await $0.execute(drop) }
    }

    /// `database`'s URL with this role's login.
    func url(for database: TestDatabase) -> String {
        var components = URLComponents(string: database.url)!
        components.user = name
        components.password = password
        return components.string!
    }
}
