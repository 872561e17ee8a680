import CLibCrypto
import Foundation
import TaskCore

/// Making and checking API token secrets with libcrypto: 256 random bits written
/// `tb_<43 base64url characters>`, stored only as HMAC-SHA-256 under the installation's key.
public struct TokenSecrets: Sendable {
    /// Every token starts so, which makes leaked ones easy to recognise (and to scan for).
    public static let marker = "tb_"
    /// How many characters of a token lists and log lines show.
    public static let prefixLength = 10
    /// The key used when `TASKBASE_TOKEN_KEY` is not set: hashes are then only as secret as this
    /// source file, so deployments set their own.
    static let fallbackKey = Array("taskbase api token key: set TASKBASE_TOKEN_KEY".utf8)

    private let key: [UInt8]
    /// The HMAC context keyed with `key`, which each hash copies.
    private let keyed: KeyedHMAC
    /// Whether the key came from the configuration rather than the built-in fallback.
    public let hasConfiguredKey: Bool

    /// Secrets hashed under `key`; nil or empty uses the built-in fallback.
    public init(key: String?) {
        if let key, !key.isEmpty {
            self.key = Array(key.utf8)
            hasConfiguredKey = true
        } else {
            self.key = Self.fallbackKey
            hasConfiguredKey = false
        }
        keyed = KeyedHMAC(key: self.key)
    }

    /// What taskctl and taskserve warn of when no key is configured: a token hashed under the
    /// built-in key works with any taskserve that has no key of its own. Nil with a key.
    public var missingKeyWarning: String? {
        hasConfiguredKey ? nil : "TASKBASE_TOKEN_KEY is not set: token hashes use the built-in key; set one, the same for taskctl and taskserve"
    }

    /// Secrets hashed under `TASKBASE_TOKEN_KEY` from `environment`.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> TokenSecrets {
        TokenSecrets(key: environment["TASKBASE_TOKEN_KEY"])
    }

    /// A new secret and its stored parts.
    public func generate() throws -> (secret: String, digest: TokenDigest) {
        var bytes = [UInt8](repeating: 0, count: 32)
        guard RAND_bytes(&bytes, Int32(bytes.count)) == 1 else { throw TokenSecretFailure("the random source failed (RAND_bytes)") }
        let secret = Self.marker + Base64URL.encode(bytes)
        return (secret, try digest(of: secret))
    }

    /// The stored parts of `secret`: its prefix and keyed hash.
    public func digest(of secret: String) throws -> TokenDigest {
        TokenDigest(prefix: Self.prefix(of: secret), hash: try keyedHash(of: secret))
    }

    /// The keyed hash of `secret` alone, as `digest(of:)` has it: what a token check looks up.
    public func keyedHash(of secret: String) throws -> [UInt8] {
        try hmac(Array(secret.utf8))
    }

    /// The first characters of `text`, safe to log whatever it is.
    public static func prefix(of text: String) -> String {
        var kept = String.UnicodeScalarView()
        for scalar in text.unicodeScalars.prefix(prefixLength) {
            switch scalar {
            case "A"..."Z", "a"..."z", "0"..."9", "_", "-": kept.append(scalar)
            default: continue
            }
        }
        return String(kept)
    }

    /// Whether `text` has a token's shape (marker and 43 base64url characters).
    public static func looksLikeToken(_ text: String) -> Bool {
        text.hasPrefix(marker) && text.utf8.count == marker.utf8.count + 43
            && text.utf8.dropFirst(marker.utf8.count).allSatisfy(Base64URL.isAlphabet)
    }

    private func hmac(_ data: [UInt8]) throws -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 32)
        if let template = keyed.template {
            let done = data.withUnsafeBufferPointer { data in
                output.withUnsafeMutableBufferPointer { taskbase_hmac_sha256(template, data.baseAddress, data.count, $0.baseAddress) }
            }
            guard done == 1 else { throw TokenSecretFailure("HMAC-SHA-256 failed (EVP_MAC)") }
            return output
        }
        var length = 0
        let result = key.withUnsafeBufferPointer { key in
            data.withUnsafeBufferPointer { data in
                output.withUnsafeMutableBufferPointer { out in
                    EVP_Q_mac(
                        nil, "HMAC", nil, "SHA256", nil, key.baseAddress, key.count, data.baseAddress, data.count, out.baseAddress, out.count, &length
                    )
                }
            }
        }
        guard result != nil, length == 32 else { throw TokenSecretFailure("HMAC-SHA-256 failed (EVP_Q_mac)") }
        return output
    }

}

/// libcrypto refused to make randomness or a hash; nothing was stored.
public struct TokenSecretFailure: Error, CustomStringConvertible {
    /// What failed.
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}

/// An HMAC-SHA-256 context keyed once, copied for each hash: a token check then costs no
/// algorithm fetch, which `EVP_Q_mac` repeats on every call (a twentieth of a served read's CPU).
/// Only copied after it is made, which libcrypto allows from several threads at once.
final class KeyedHMAC: @unchecked Sendable {
    /// nil when libcrypto could not make it: hashes then go through `EVP_Q_mac`.
    let template: OpaquePointer?

    init(key: [UInt8]) {
        template = key.withUnsafeBufferPointer { taskbase_hmac_sha256_template($0.baseAddress, $0.count) }
    }

    deinit {
        if let template { EVP_MAC_CTX_free(template) }
    }
}
