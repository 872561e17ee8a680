import Foundation
import PGStore
import TaskCore

/// Users under row-level security (migration 0009): as an acting user, the runtime role sees
/// and changes only what `UserVisibility` and the operator policies allow. With no actor the
/// call runs with the login's own rights, without switching to the runtime role: only the
/// database's administrator gets anywhere that way.
extension PostgresTaskStore: UserRepository {
    public func createUser(email: String, displayName: String, isOperator: Bool, at time: Date, as actor: UserRef?) async throws -> User {
        try await transaction(as: actor, runtime: actor != nil) { tx in
            do {
                let rows = try await tx.query(
                    """
                    INSERT INTO users AS u (email, display_name, is_operator, created_at) VALUES (\(email), \(displayName), \(isOperator), \(time))
                    RETURNING \(unsafeSQL: Self.userColumns)
                    """)
                return try Self.user(in: rows[0])!
            } catch let error as PGError where error.code == .uniqueViolation && error.constraint == "users_email_key" {
                // Under row-level security the server leaves the taken address out of its
                // detail; it is the one given, named as the memory store names it.
                throw TaskError.alreadyExists(what: "user \(email)")
            }
        }
    }

    public func user(_ ref: UserRef, as actor: UserRef?) async throws -> User? {
        return try await transaction(as: actor, runtime: actor != nil) { tx in
            let rows = try await tx.query(
                """
                SELECT \(unsafeSQL: Self.userColumns) FROM users u WHERE \(Self.userMatch("u", ref))
                """)
            return try rows.first.flatMap(Self.user(in:))
        }
    }

    /// Whom the row policy shows, and for an admin or owner of some team whoever holds the
    /// address, through `taskbase_user_by_email` (migration 0025).
    public func user(toAdd email: String, as actor: UserRef) async throws -> User? {
        let ref = UserRef.email(email)
        return try await transaction(as: actor, runtime: true) { tx in
            let rows = try await tx.query(
                """
                SELECT \(unsafeSQL: Self.userColumns) FROM users u WHERE \(Self.userMatch("u", ref))
                 UNION SELECT \(unsafeSQL: Self.userColumns) FROM public.taskbase_user_by_email(\(Self.emailKey(email))) u
                """)
            return try rows.first.flatMap(Self.user(in:))
        }
    }

    public func users(as actor: UserRef?) async throws -> [User] {
        try await transaction(as: actor, runtime: actor != nil) { tx in
            try await tx.query("SELECT \(unsafeSQL: Self.userColumns) FROM users u ORDER BY u.email COLLATE \"C\"").compactMap(Self.user(in:))
        }
    }

    public func setUserDisabled(_ id: UserID, _ disabled: Bool, as actor: UserRef?) async throws -> User {
        try await transaction(as: actor, runtime: actor != nil) { tx in
            let rows = try await tx.query(
                """
                UPDATE users u SET disabled = \(disabled) WHERE u.id = \(id.rawValue) RETURNING \(unsafeSQL: Self.userColumns)
                """)
            guard let user = try rows.first.flatMap(Self.user(in:)) else { throw TaskError.unknownUser(.id(id)) }
            return user
        }
    }
}
