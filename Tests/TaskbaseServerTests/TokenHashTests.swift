import APITokens
import TaskCore
import Testing

@Suite("Token hashes")
struct TokenHashTests {
    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }

    @Test("the keyed hash is HMAC-SHA-256: RFC 4231's second case, and a key longer than SHA-256's block")
    func knownAnswers() throws {
        #expect(
            Self.hex(try TokenSecrets(key: "Jefe").digest(of: "what do ya want for nothing?").hash)
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        // Python: hmac.new(b'taskbase key ' * 10, b'tb_' + b'A' * 43, hashlib.sha256).hexdigest()
        let longKey = String(repeating: "taskbase key ", count: 10)
        #expect(
            Self.hex(try TokenSecrets(key: longKey).digest(of: "tb_" + String(repeating: "A", count: 43)).hash)
                == "a6687a1303249e1658bf66a7f6a9d838f750684257670fc14ad13a769265ac3b")
    }

    @Test("a new token is tb_ and 256 random bits in base64url, its digest of the whole secret; a thousand are all different")
    func generated() throws {
        let secrets = TokenSecrets(key: "generated")
        var seen = Set<String>()
        for _ in 0..<1_000 {
            let (secret, digest) = try secrets.generate()
            #expect(TokenSecrets.looksLikeToken(secret), "\(secret.prefix(TokenSecrets.prefixLength))")
            #expect(Base64URL.decode(secret.dropFirst(TokenSecrets.marker.count))?.count == 32)
            #expect(digest == (try secrets.digest(of: secret)))
            #expect(digest.prefix == String(secret.prefix(TokenSecrets.prefixLength)) && digest.hash.count == 32)
            seen.insert(secret)
        }
        #expect(seen.count == 1_000)
    }

    @Test("one key hashes from many tasks at once, each hash as if alone")
    func concurrentHashes() async throws {
        let secrets = TokenSecrets(key: "shared key")
        let inputs = (0..<64).map { "tb_" + String(repeating: "x", count: 40) + String($0 % 1000 + 100) }
        let alone = try inputs.map { try secrets.digest(of: $0).hash }
        let together = try await withThrowingTaskGroup(of: (Int, [UInt8]).self) { group in
            for _ in 0..<8 {
                for (index, input) in inputs.enumerated() {
                    group.addTask { (index, try secrets.digest(of: input).hash) }
                }
            }
            var seen: [(Int, [UInt8])] = []
            for try await result in group { seen.append(result) }
            return seen
        }
        #expect(together.count == 8 * inputs.count)
        #expect(together.allSatisfy { alone[$0.0] == $0.1 })
        #expect(Set(alone.map(Self.hex)).count == inputs.count)
    }
}
