import CLibCrypto

/// SHA-256, computed by libcrypto (OpenSSL's EVP digest interface), fed in pieces or at once:
/// migration checksums (the history stores each file's digest; the algorithm is frozen, so a
/// checksum written by one version of the tool verifies with every later one) and the HTTP
/// API's request fingerprints. The type only adapts libcrypto to Swift: the hashing is OpenSSL's.
public struct SHA256: ~Copyable {
    private let context: OpaquePointer

    /// SHA-256 fetched from libcrypto's default provider once: `EVP_sha256()` would have
    /// each digest look the algorithm up again (OpenSSL 3's implicit fetch). Never freed, as a
    /// program's algorithms are not; libcrypto's objects are safe to share between threads.
    private nonisolated(unsafe) static let algorithm: OpaquePointer = {
        guard let fetched = EVP_MD_fetch(nil, "SHA256", nil) else { fatalError("libcrypto has no SHA-256") }
        return fetched
    }()

    /// A hasher with nothing fed yet.
    public init() {
        // Only an allocation failure can make either call fail; there is nothing to recover.
        guard let context = EVP_MD_CTX_new() else { fatalError("libcrypto could not allocate a digest context") }
        guard EVP_DigestInit_ex(context, Self.algorithm, nil) == 1 else { fatalError("libcrypto could not start a SHA-256 digest") }
        self.context = context
    }

    deinit { EVP_MD_CTX_free(context) }

    /// The digest of `bytes` in one call.
    public static func digest<Bytes: Sequence>(of bytes: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalize()
    }

    /// The hex digest of `bytes` in one call: 64 lowercase hex digits. Written into the
    /// string's storage directly (a `String(radix:)` and a join per byte cost more than the
    /// hash of a short body, and every weak `ETag` is one).
    public static func hexDigest<Bytes: Sequence>(of bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let digest = digest(of: bytes)
        return String(unsafeUninitializedCapacity: 2 * digest.count) { text in
            for (index, byte) in digest.enumerated() {
                text[2 * index] = hexDigit(byte >> 4)
                text[2 * index + 1] = hexDigit(byte & 0x0F)
            }
            return 2 * digest.count
        }
    }

    /// The lowercase hex digit of `nibble` (0...15), as UTF-8.
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }

    /// Feeds more bytes.
    public mutating func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        let context = self.context
        let handled: Void? = bytes.withContiguousStorageIfAvailable { Self.feed($0, to: context) }
        if handled == nil { Array(bytes).withUnsafeBufferPointer { Self.feed($0, to: context) } }
    }

    private static func feed(_ buffer: UnsafeBufferPointer<UInt8>, to context: OpaquePointer) {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return }
        guard EVP_DigestUpdate(context, base, buffer.count) == 1 else { fatalError("libcrypto refused digest input") }
    }

    /// The 32-byte digest of everything fed; the hasher is used up.
    public consuming func finalize() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        guard EVP_DigestFinal_ex(context, &digest, &length) == 1, length == 32 else { fatalError("libcrypto could not finish a SHA-256 digest") }
        return digest
    }
}
