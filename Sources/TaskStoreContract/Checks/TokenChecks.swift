import Foundation
import TaskCore
import Testing

extension TaskStoreContract {
    /// A digest no other check uses.
    static func freshDigest() -> TokenDigest {
        let hash = (0..<32).map { _ in UInt8.random(in: 0...255) }
        return TokenDigest(prefix: "tb_" + hash.prefix(4).map { String($0, radix: 16) }.joined(), hash: hash)
    }

    static let tokenChecks: [ContractCheck] = [
        ContractCheck("a token is found by its hash with its user, listed newest first, and never by another hash") { f in
            let digest = freshDigest()
            let first = try await f.service.createToken(for: f.member, name: "ci", lifetime: 3_600, digest: digest)
            let second = try await f.service.createOwnToken(name: "laptop", lifetime: 86_400, digest: freshDigest(), as: f.member)
            let found = try #require(try await f.service.authenticate(hash: digest.hash))
            #expect(found.token == first)
            #expect(found.user.id == first.userID)
            #expect(found.token.prefix == digest.prefix)
            #expect(try await f.service.authenticate(hash: freshDigest().hash) == nil)
            #expect(try await f.service.ownTokens(as: f.member).map(\.id) == [second.id, first.id])
            #expect(try await f.service.tokens(of: f.owner).isEmpty)
            #expect(abs(second.expiresAt.timeIntervalSince(second.createdAt) - 86_400) < 0.001)
        },
        ContractCheck("a revoked or expired token, or one of a disabled user, authenticates no one") { f in
            let revoked = freshDigest(), expiring = freshDigest(), disabled = freshDigest()
            let token = try await f.service.createToken(for: f.member, name: "r", lifetime: 3_600, digest: revoked)
            let once = try await f.service.revokeToken(token.id)
            #expect(once.revokedAt != nil)
            #expect(try await f.service.revokeToken(token.id).revokedAt == once.revokedAt)
            #expect(try await f.service.authenticate(hash: revoked.hash) == nil)
            let short = try await f.service.createToken(for: f.member, name: "e", lifetime: 60, digest: expiring)
            #expect(short.isActive(at: short.createdAt))
            #expect(!short.isActive(at: short.expiresAt))
            let user = try await f.makeUser()
            _ = try await f.service.createToken(for: user, name: "d", lifetime: 3_600, digest: disabled)
            #expect(try await f.service.authenticate(hash: disabled.hash) != nil)
            _ = try await f.service.setUserDisabled(user, true)
            #expect(try await f.service.authenticate(hash: disabled.hash) == nil)
            // No new token for them either: a clear refusal (Postgres once answered the row
            // security's 42501 of migration 0035), nothing stored.
            #expect(
                await Outcome.of { _ = try await f.service.createToken(for: user, name: "d2", lifetime: 3_600, digest: freshDigest()) }
                    == .invalid(field: "email"))
            #expect(try await f.service.tokens(of: user).count == 1)
        },
        ContractCheck("users revoke only their own tokens; another's reads as not found and stays active") { f in
            let digest = freshDigest()
            let token = try await f.service.createOwnToken(name: "mine", lifetime: 3_600, digest: digest, as: f.owner)
            await #expect(throws: TaskError.notFound(what: "token #\(token.id)")) { _ = try await f.service.revokeOwnToken(token.id, as: f.member) }
            #expect(try await f.service.authenticate(hash: digest.hash) != nil)
            #expect(try await f.service.revokeOwnToken(token.id, as: f.owner).revokedAt != nil)
            await #expect(throws: TaskError.notFound(what: "token #999999999")) { _ = try await f.service.revokeToken(TokenID(999_999_999)) }
            await #expect(throws: TaskError.self) {
                _ = try await f.service.createOwnToken(name: "x", lifetime: 3_600, digest: freshDigest(), as: f.disabled)
            }
        },
        ContractCheck("a token's name and lifetime are validated and a refused token is not stored") { f in
            await #expect(throws: TaskError.validation(field: "name", reason: "a name is one line of 1 to 200 characters")) {
                _ = try await f.service.createToken(for: f.member, name: "  ", lifetime: 3_600, digest: freshDigest())
            }
            await #expect(throws: TaskError.validation(field: "expires_in", reason: "a lifetime is from 1 minute to 2 years")) {
                _ = try await f.service.createToken(for: f.member, name: "x", lifetime: 1, digest: freshDigest())
            }
            let stored = try await f.service.tokens(of: f.member)
            #expect(stored.isEmpty)
            #expect(throws: TaskError.self) { try TokenFields.lifetime("soon") }
            let ninetyDays = try TokenFields.lifetime("90d")
            #expect(ninetyDays == 90 * 86_400)
        },
        ContractCheck("use is recorded at most once a minute") { f in
            let digest = freshDigest()
            let token = try await f.service.createToken(for: f.member, name: "used", lifetime: 3_600, digest: digest)
            try await f.store.recordTokenUse(token.id, at: token.createdAt)
            try await f.store.recordTokenUse(token.id, at: token.createdAt.addingTimeInterval(30))
            #expect(try await f.store.token(token.id)?.lastUsedAt == token.createdAt)
            try await f.store.recordTokenUse(token.id, at: token.createdAt.addingTimeInterval(61))
            #expect(try await f.store.token(token.id)?.lastUsedAt == token.createdAt.addingTimeInterval(61))
        },
        ContractCheck("revoking a token and disabling a user ring the invalidation doorbell") { f in
            let doorbell = try await f.service.tokenInvalidations()
            var rings = doorbell.makeAsyncIterator()
            let token = try await f.service.createToken(for: f.member, name: "bell", lifetime: 3_600, digest: freshDigest())
            _ = try await f.service.revokeToken(token.id)
            #expect(try await rings.next() != nil)
            _ = try await f.service.setUserDisabled(f.viewer, true)
            #expect(try await rings.next() != nil)
        },
    ]
}
