import Foundation
import PGStore
import TaskCore

extension PostgresTaskStore: UserRepository {
    public func createUser(email: String, displayName: String, at time: Date) async throws -> User {
        try await transaction(as: nil) { tx in
            let rows = try await tx.query(
                """
                INSERT INTO users AS u (email, display_name, created_at) VALUES (\(email), \(displayName), \(time))
                RETURNING \(unsafeSQL: Self.userColumns)
                """)
            return try Self.user(in: rows[0])!
        }
    }

    public func user(_ ref: UserRef) async throws -> User? {
        return try await transaction(as: nil) { tx in
            let rows = try await tx.query(
                """
                SELECT \(unsafeSQL: Self.userColumns) FROM users u WHERE \(Self.userMatch("u", ref))
                """)
            return try rows.first.flatMap(Self.user(in:))
        }
    }

    public func users() async throws -> [User] {
        try await transaction(as: nil) { tx in
            try await tx.query("SELECT \(unsafeSQL: Self.userColumns) FROM users u ORDER BY u.email").compactMap(Self.user(in:))
        }
    }

    public func setUserDisabled(_ id: UserID, _ disabled: Bool) async throws -> User {
        try await transaction(as: nil) { tx in
            let rows = try await tx.query(
                """
                UPDATE users u SET disabled = \(disabled) WHERE u.id = \(id.rawValue) RETURNING \(unsafeSQL: Self.userColumns)
                """)
            guard let user = try rows.first.flatMap(Self.user(in:)) else { throw TaskError.notFound(what: "user #\(id)") }
            return user
        }
    }
}
