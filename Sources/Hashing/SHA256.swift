import CLibCrypto

/// SHA-256, computed by libcrypto (OpenSSL's EVP digest interface), fed in pieces or at once:
/// migration checksums (the history stores each file's digest; the algorithm is frozen, so a
/// checksum written by one version of the tool verifies with every later one) and the HTTP
/// API's request fingerprints. The type only adapts libcrypto to Swift: the hashing is OpenSSL's.
public struct SHA256: ~Copyable {
    private let context: OpaquePointer

    /// A hasher with nothing fed yet.
    public init() {
        // Only an allocation failure can make either call fail; there is nothing to recover.
        guard let context = EVP_MD_CTX_new() else { fatalError("libcrypto could not allocate a digest context") }
        guard EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else { fatalError("libcrypto could not start a SHA-256 digest") }
        self.context = context
    }

    deinit { EVP_MD_CTX_free(context) }

    /// The digest of `bytes` in one call.
    public static func digest<Bytes: Sequence>(of bytes: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalize()
    }

    /// The hex digest of `bytes` in one call.
    public static func hexDigest<Bytes: Sequence>(of bytes: Bytes) -> String where Bytes.Element == UInt8 {
        digest(of: bytes).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
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
