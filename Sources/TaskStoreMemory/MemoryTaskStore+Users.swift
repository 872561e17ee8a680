import Foundation
import TaskCore

extension MemoryTaskStore: UserRepository {
    /// Refuses an email already taken.
    public func createUser(email: String, displayName: String, at time: Date) async throws -> User {
        try state.withLock { state in
            guard state.userIDsByEmail[email] == nil else { throw TaskError.alreadyExists(what: "user \(email)") }
            let user = User(id: state.nextID(), email: email, displayName: displayName, isDisabled: false, createdAt: time)
            state.users[user.id] = user
            state.userIDsByEmail[email] = user.id
            return user
        }
    }

    /// Looks a user up by id or lowercased email.
    public func user(_ ref: UserRef) async throws -> User? {
        state.withLock { $0.user(ref) }
    }

    /// Every user, by email.
    public func users() async throws -> [User] {
        state.withLock { $0.users.values.sorted { $0.email < $1.email } }
    }

    /// Flips the disabled flag.
    public func setUserDisabled(_ id: UserID, _ disabled: Bool) async throws -> User {
        try state.withLock { state in
            guard var user = state.users[id] else { throw TaskError.notFound(what: UserRef.id(id).description) }
            user.isDisabled = disabled
            state.users[id] = user
            for listener in state.tokenListeners.values { listener.yield() }
            for (team, roles) in state.roles where roles[id] != nil { state.ring(team) }
            return user
        }
    }
}
