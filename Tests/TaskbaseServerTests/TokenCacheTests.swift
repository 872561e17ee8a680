import APITokens
import Foundation
import Synchronization
import TaskCore
import TaskStoreMemory
@testable import TaskbaseServer
import TaskbaseTestSupport
import Testing

@Suite("The verified-token cache")
struct TokenCacheTests {
    /// The verifier, handed to its own hook once it exists; armed for one lookup.
    final class Slot: Sendable {
        let verifier = Mutex<TokenVerifier?>(nil)
        let armed = Mutex(true)
    }

    static let secrets = TokenSecrets(key: "test key")

    /// A service over a fresh memory store, with one user and a token of theirs.
    static func userWithToken() async throws -> (service: TaskService, user: User, secret: String, token: APIToken) {
        let service = TaskService(store: MemoryTaskStore())
        let user = try await service.createUser(email: "token.user@example.com", displayName: "Token User")
        let (secret, digest) = try secrets.generate()
        let token = try await service.createToken(for: .id(user.id), name: "cache test", lifetime: 3_600, digest: digest)
        return (service, user, secret, token)
    }

    @Test("a token revoked while its lookup is under way is refused on the next request, not put back in the cache by that lookup")
    func revokedDuringLookup() async throws {
        let (service, user, secret, token) = try await Self.userWithToken()
        let slot = Slot()
        // The attack's timing, made certain: the first lookup has read the token (still valid)
        // when it is revoked, and the revocation's ring has emptied the cache before the lookup
        // stores what it read.
        let verifier = TokenVerifier(service: service, secrets: Self.secrets) {
            guard
                slot.armed.withLock({ armed in
                    defer { armed = false }; return armed
                }), let verifier = slot.verifier.withLock({ $0 })
            else {
                return
            }
            let before = verifier.generation
            _ = try? await service.revokeToken(token.id)
            try? await waitUntil("the revocation's ring to empty the cache") { verifier.generation > before }
        }
        slot.verifier.withLock { $0 = verifier }
        verifier.start()
        defer { verifier.stop() }
        try await waitUntil("the invalidation doorbell to connect") { verifier.isCaching }

        let first = try await verifier.verify(secret)
        #expect(first?.user.id == user.id, "the request that read the token before its revocation is served")
        #expect(slot.armed.withLock { !$0 }, "the hook ran")
        let second = try await verifier.verify(secret)
        #expect(second == nil, "the revoked token was served from the cache")
    }

    @Test("a token verified once is served from the cache until a ring empties it")
    func cachedUntilRing() async throws {
        let (service, user, secret, token) = try await Self.userWithToken()
        let verifier = TokenVerifier(service: service, secrets: Self.secrets)
        verifier.start()
        defer { verifier.stop() }
        try await waitUntil("the invalidation doorbell to connect") { verifier.isCaching }
        #expect(try await verifier.verify(secret)?.user.id == user.id)
        let before = verifier.generation
        _ = try await service.revokeToken(token.id)
        try await waitUntil("the revocation's ring to empty the cache") { verifier.generation > before }
        #expect(try await verifier.verify(secret) == nil)
    }
}

@Suite("A token's loggable prefix")
struct TokenPrefixTests {
    @Test("the prefix is the token's first ten characters; from any other text only its first ten letters, digits, _ and - survive")
    func prefix() throws {
        let (secret, digest) = try TokenSecrets(key: "test key").generate()
        #expect(TokenSecrets.prefix(of: secret) == String(secret.prefix(TokenSecrets.prefixLength)))
        #expect(digest.prefix == TokenSecrets.prefix(of: secret))
        #expect(TokenSecrets.prefix(of: "tb_\u{1B}[31m\"é/ab") == "tb_31m")
        #expect(TokenSecrets.prefix(of: "") == "")
        #expect(TokenSecrets.prefix(of: String(repeating: "x", count: 100)).count == TokenSecrets.prefixLength)
    }
}
