import Foundation

/// Storage of users. Provisioning is an operator's job: `TaskService` checks the operator,
/// and every call names who acts so that the database can check again. A nil actor is the
/// database login's own rights (its administrator, bootstrapping the first operator); the
/// runtime login alone gets nothing that way.
public protocol UserRepository: Sendable {
    /// Stores a new user with an already validated, lowercased email; a taken email is `alreadyExists`.
    func createUser(email: String, displayName: String, isOperator: Bool, at time: Date, as actor: UserRef?) async throws -> User
    /// The user a reference names as `actor` may see them (`UserVisibility`), or nil.
    func user(_ ref: UserRef, as actor: UserRef?) async throws -> User?
    /// The user holding the (validated) address `email` as `actor` may see them when adding
    /// members (`UserVisibility`, `toAdd`): an admin or owner of some team finds anyone by the
    /// address they know; anyone else as `user(_:as:)` would, or nil.
    func user(toAdd email: String, as actor: UserRef) async throws -> User?
    /// Every user `actor` may see, by email.
    func users(as actor: UserRef?) async throws -> [User]
    /// Disables or enables a user; `notFound` when there is no such user. Disabling the last
    /// enabled owner of a team is refused (`OwnerRule`).
    func setUserDisabled(_ id: UserID, _ disabled: Bool, as actor: UserRef?) async throws -> User
}
