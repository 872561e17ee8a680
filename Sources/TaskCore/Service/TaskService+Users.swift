/// Operator calls: provisioning users is for whoever runs the installation.
extension TaskService {
    /// Creates a user; the email is validated and lowercased, a taken one is `alreadyExists`.
    public func createUser(email: String, displayName: String) async throws -> User {
        let email = try UserFields.email(email)
        let name = try UserFields.name(displayName)
        return try await store.createUser(email: email, displayName: name, at: clock.now())
    }

    /// Every user, by email.
    public func users() async throws -> [User] {
        try await store.users()
    }

    /// The user `ref` names, or `notFound`.
    public func user(_ ref: UserRef) async throws -> User {
        try await existingUser(ref)
    }

    /// Disables (`true`) or re-enables a user; a disabled user can do nothing.
    public func setUserDisabled(_ ref: UserRef, _ disabled: Bool) async throws -> User {
        try await store.setUserDisabled(try await existingUser(ref).id, disabled)
    }
}
