import Foundation
import TaskCore

extension MemoryTaskStore: UserRepository {
    /// Refuses an email already taken.
    public func createUser(email: String, displayName: String, isOperator: Bool, at time: Date, as actor: UserRef?) async throws -> User {
        try state.withLock { state in
            guard state.userIDsByEmail[email] == nil else { throw TaskError.alreadyExists(what: "user \(email)") }
            let user = User(id: state.nextID(), email: email, displayName: displayName, isDisabled: false, createdAt: time, isOperator: isOperator)
            state.users[user.id] = user
            state.userIDsByEmail[email] = user.id
            return user
        }
    }

    /// Looks a user up by id or lowercased email, as `actor` may see them.
    public func user(_ ref: UserRef, as actor: UserRef?) async throws -> User? {
        state.withLock { state in state.user(ref).flatMap { state.sees($0, as: actor) ? $0 : nil } }
    }

    /// Looks a user up by email as `actor` may see them when adding members: one seen only to
    /// be added is found as `UserVisibility.foundToAdd` says.
    public func user(toAdd email: String, as actor: UserRef) async throws -> User? {
        state.withLock { state in
            state.user(.email(email)).flatMap { user in
                if state.sees(user, as: actor) { return user }
                return state.sees(user, as: actor, toAdd: true) ? UserVisibility.foundToAdd(user) : nil
            }
        }
    }

    /// Every user `actor` may see, by email.
    public func users(as actor: UserRef?) async throws -> [User] {
        state.withLock { state in state.users.values.filter { state.sees($0, as: actor) }.sorted { $0.email < $1.email } }
    }

    /// Flips the disabled flag, keeping an enabled owner in every team.
    public func setUserDisabled(_ id: UserID, _ disabled: Bool, as actor: UserRef?) async throws -> User {
        try state.withLock { state in
            guard var user = state.users[id] else { throw TaskError.unknownUser(.id(id)) }
            user.isDisabled = disabled
            state.users[id] = user
            for (team, roles) in state.roles where roles[id] == .owner {
                if let key = state.teams[team]?.key {
                    do {
                        try OwnerRule.verify(enabledOwnersAfterChange: state.enabledOwners(in: roles), team: key)
                    } catch {
                        user.isDisabled = !disabled
                        state.users[id] = user
                        throw error
                    }
                }
            }
            for listener in state.tokenListeners.values { listener.yield() }
            for (team, roles) in state.roles where roles[id] != nil { state.ring(team) }
            return user
        }
    }
}
