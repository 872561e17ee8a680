import Foundation
import TaskCore

extension MemoryTaskStore: TokenRepository {
    /// Refuses a hash already stored.
    public func createToken(of user: UserID, name: String, digest: TokenDigest, expiresAt: Date, at time: Date) async throws -> APIToken {
        try writing { state in
            guard state.users[user] != nil else { throw TaskError.unknownUser(.id(user)) }
            guard state.tokenIDsByHash[digest.hash] == nil else { throw TaskError.alreadyExists(what: "token \(digest.prefix)") }
            let token = APIToken(id: state.nextID(), userID: user, name: name, prefix: digest.prefix, createdAt: time, expiresAt: expiresAt)
            state.tokens[token.id] = token
            state.tokenIDsByHash[digest.hash] = token.id
            state.noteIdempotentEffect()
            return token
        }
    }

    /// Newest first.
    public func tokens(of user: UserID) async throws -> [APIToken] {
        state.withLock { state in state.tokens.values.filter { $0.userID == user }.sorted { ($0.createdAt, $0.id) > ($1.createdAt, $1.id) } }
    }

    /// By id.
    public func token(_ id: TokenID) async throws -> APIToken? {
        state.withLock { $0.tokens[id] }
    }

    /// By hash, with its user.
    public func token(hash: [UInt8]) async throws -> (token: APIToken, user: User)? {
        state.withLock { state in
            guard let token = state.tokenIDsByHash[hash].flatMap({ state.tokens[$0] }), let user = state.users[token.userID] else { return nil }
            return (token, user)
        }
    }

    /// Keeps the first revocation time; tells the listeners.
    public func revokeToken(_ id: TokenID, at time: Date) async throws -> APIToken {
        try writing { state in
            guard var token = state.tokens[id] else { throw TaskError.notFound(what: "token #\(id)") }
            if token.revokedAt == nil { token.revokedAt = time }
            state.tokens[id] = token
            state.noteIdempotentEffect()
            for listener in state.tokenListeners.values { listener.yield() }
            return token
        }
    }

    /// At most once a minute.
    public func recordTokenUse(_ id: TokenID, at time: Date) async throws {
        state.withLock { state in
            guard let token = state.tokens[id], token.needsUseRecorded(at: time) else { return }
            state.tokens[id]?.lastUsedAt = time
        }
    }

    /// A stream fed by revocations and by users disabled or enabled; rings coalesce while the
    /// consumer is busy.
    public func tokenInvalidations() async throws -> AsyncThrowingStream<Void, any Error> {
        AsyncThrowingStream(bufferingPolicy: .bufferingNewest(1)) { continuation in
            let id = state.withLock { state in
                state.lastListenerID += 1
                state.tokenListeners[state.lastListenerID] = continuation
                return state.lastListenerID
            }
            continuation.onTermination = { [weak self] _ in
                _ = self?.state.withLock { $0.tokenListeners.removeValue(forKey: id) }
            }
        }
    }
}
