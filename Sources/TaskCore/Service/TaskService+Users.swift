/// Provisioning users is an operator's action: `as` names the operator. Without one the call
/// runs with the database login's own rights, which only its administrator has (the
/// bootstrap of the first operator); the runtime login alone is refused by the database.
extension TaskService {
    /// Creates a user (an operator when `isOperator`); the email is validated and lowercased,
    /// a taken one is `alreadyExists`.
    public func createUser(email: String, displayName: String, isOperator: Bool = false, as operator: UserRef? = nil) async throws -> User {
        let email = try UserFields.email(email)
        let name = try UserFields.name(displayName)
        if let `operator` { try await requireOperator(`operator`) }
        return try await store.createUser(email: email, displayName: name, isOperator: isOperator, at: clock.now(), as: `operator`)
    }

    /// Every user `actor` may see (all of them for an operator), by email.
    public func users(as actor: UserRef? = nil) async throws -> [User] {
        if let actor { try await requireOperator(actor) }
        return try await store.users(as: actor)
    }

    /// The user `ref` names as `actor` may see them (`UserVisibility`), or `notFound`.
    public func user(_ ref: UserRef, as actor: UserRef? = nil) async throws -> User {
        try await existingUser(ref, as: actor)
    }

    /// Disables (`true`) or re-enables a user (operators); a disabled user can do nothing. The
    /// last enabled owner of a team cannot be disabled.
    public func setUserDisabled(_ ref: UserRef, _ disabled: Bool, as operator: UserRef? = nil) async throws -> User {
        if let `operator` { try await requireOperator(`operator`) }
        return try await store.setUserDisabled(try await existingUser(ref, as: `operator`).id, disabled, as: `operator`)
    }

    /// The enabled operator `ref` names, or `permissionDenied`: the gate of every provisioning
    /// call (the HTTP API lets operators make tokens for others through it).
    @discardableResult
    public func requireOperator(_ ref: UserRef) async throws -> User {
        let user = try await enabledActor(ref)
        guard user.isOperator else {
            throw TaskError.permissionDenied(
                what: "manage users", why: "\(user.email) is not an operator (only operators add, disable and enable users, or make their tokens)")
        }
        return user
    }
}
