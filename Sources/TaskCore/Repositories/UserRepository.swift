import Foundation

/// Storage of users. Provisioning is an operator's job (whoever holds the database
/// credentials), so these calls are not gated by a team role.
public protocol UserRepository: Sendable {
    /// Stores a new user with an already validated, lowercased email; a taken email is `alreadyExists`.
    func createUser(email: String, displayName: String, at time: Date) async throws -> User
    /// The user a reference names, or nil.
    func user(_ ref: UserRef) async throws -> User?
    /// Every user, by email.
    func users() async throws -> [User]
    /// Disables or enables a user; `notFound` when there is no such user.
    func setUserDisabled(_ id: UserID, _ disabled: Bool) async throws -> User
}
