import Foundation
import PGStore
import TaskCore

/// Users under row-level security (migration 0009): as an acting user, the runtime role sees
/// and changes only what `UserVisibility` and the operator policies allow. With no actor the
/// call runs with the login's own rights, without switching to the runtime role: only the
/// database's administrator gets anywhere that way.
extension PostgresTaskStore: UserRepository {
    /// A transaction as `actor`, or with no actor under the login's own rights. Row security
    /// binds a login that is not the schema's owner (or a superuser): the runtime login, which
    /// with no actor sees no user and may add none. It is refused by name, since what it got
    /// before read as something else: an empty `user list`, "user ... not found" for one who
    /// exists, or the policy's own words.
    private func usersTransaction<T>(as actor: UserRef?, _ body: (PGConnection) async throws -> T) async throws -> T {
        try await transaction(as: actor, runtime: actor != nil) { tx in
            if actor == nil, try await tx.query("SELECT row_security_active('public.users') AS bound")[0].decode(Bool.self, "bound") {
                throw TaskError.permissionDenied(
                    what: "manage users",
                    why: """
                        with no acting user this runs with the database login's own rights, and this login is bound by \
                        row security (the runtime login): act as an operator (--as EMAIL or TASKBASE_ACTOR), or use the \
                        database administrator's login
                        """)
            }
            return try await body(tx)
        }
    }

    public func createUser(email: String, displayName: String, isOperator: Bool, at time: Date, as actor: UserRef?) async throws -> User {
        try await usersTransaction(as: actor) { tx in
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
        return try await usersTransaction(as: actor) { tx in
            let rows = try await tx.query(
                """
                SELECT \(unsafeSQL: Self.userColumns) FROM users u WHERE \(Self.userMatch("u", ref))
                """)
            return try rows.first.flatMap(Self.user(in:))
        }
    }

    /// Whom the row policy shows, and for an admin or owner of some team whoever else holds the
    /// address, through `taskbase_user_by_email` (migration 0025), which tells no one's operator
    /// flag (0039: `UserVisibility.foundToAdd`).
    public func user(toAdd email: String, as actor: UserRef) async throws -> User? {
        let ref = UserRef.email(email)
        return try await transaction(as: actor, runtime: true) { tx in
            let rows = try await tx.query(
                """
                SELECT \(unsafeSQL: Self.userColumns) FROM users u WHERE \(Self.userMatch("u", ref))
                 UNION ALL
                SELECT \(unsafeSQL: Self.userColumns) FROM public.taskbase_user_by_email(\(Self.emailKey(email))) u
                 WHERE NOT EXISTS (SELECT FROM users seen WHERE seen.id = u.id)
                """)
            return try rows.first.flatMap(Self.user(in:))
        }
    }

    public func users(as actor: UserRef?) async throws -> [User] {
        try await usersTransaction(as: actor) { tx in
            try await tx.query("SELECT \(unsafeSQL: Self.userColumns) FROM users u ORDER BY u.email COLLATE \"C\"").compactMap(Self.user(in:))
        }
    }

    public func setUserDisabled(_ id: UserID, _ disabled: Bool, as actor: UserRef?) async throws -> User {
        try await usersTransaction(as: actor) { tx in
            let rows = try await tx.query(
                """
                UPDATE users u SET disabled = \(disabled) WHERE u.id = \(id.rawValue) RETURNING \(unsafeSQL: Self.userColumns)
                """)
            guard let user = try rows.first.flatMap(Self.user(in:)) else { throw TaskError.unknownUser(.id(id)) }
            return user
        }
    }
}
