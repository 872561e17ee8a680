import Foundation

/// Store identity of an API token.
public typealias TokenID = EntityID<APIToken>

/// An API token as stored: whose it is and when it works. The secret itself is never stored,
/// only its keyed hash (`TokenRepository`), and never kept in this value.
public struct APIToken: Hashable, Sendable {
    /// Store identity.
    public var id: TokenID
    /// The user the token acts as.
    public var userID: UserID
    /// What it is for, shown in lists.
    public var name: String
    /// The token's first characters, which lists and log lines show.
    public var prefix: String
    /// When it was made.
    public var createdAt: Date
    /// When it stops working.
    public var expiresAt: Date
    /// When it was last used, to the minute; nil if never.
    public var lastUsedAt: Date?
    /// When it was revoked; nil while it is not.
    public var revokedAt: Date?

    /// A token as a store read it.
    public init(
        id: TokenID, userID: UserID, name: String, prefix: String, createdAt: Date, expiresAt: Date, lastUsedAt: Date? = nil,
        revokedAt: Date? = nil
    ) {
        self.id = id
        self.userID = userID
        self.name = name
        self.prefix = prefix
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.lastUsedAt = lastUsedAt
        self.revokedAt = revokedAt
    }

    /// Whether it authenticates at `time`: not revoked and not expired.
    public func isActive(at time: Date) -> Bool {
        revokedAt == nil && time < expiresAt
    }

    /// How often `last_used_at` is written at most: a busy token costs one write a minute.
    public static let useRecordingInterval: TimeInterval = 60

    /// Whether a use at `time` should be recorded.
    public func needsUseRecorded(at time: Date) -> Bool {
        guard let lastUsedAt else { return true }
        return time.timeIntervalSince(lastUsedAt) >= Self.useRecordingInterval
    }
}

/// A new token's stored parts, made by whoever holds the random source and the hashing key
/// (the programs, with libcrypto): the display prefix and the keyed hash of the secret.
public struct TokenDigest: Hashable, Sendable {
    /// The first characters of the secret.
    public let prefix: String
    /// The keyed hash of the whole secret (HMAC-SHA-256, 32 bytes).
    public let hash: [UInt8]

    /// The parts of a token.
    public init(prefix: String, hash: [UInt8]) {
        self.prefix = prefix
        self.hash = hash
    }
}
