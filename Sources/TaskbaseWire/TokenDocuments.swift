import Foundation
import TaskCore

/// The body of `POST /v1/me/tokens`: an optional `name` and lifetime `expires_in` (`90d`, `12h`,
/// `30m`, `3600s`; default 90 days).
public struct CreateTokenRequest: Codable, Hashable, Sendable {
    /// What the token is for, shown in lists.
    public var name: String?
    /// How long it lives.
    public var expiresIn: String?

    enum CodingKeys: String, CodingKey {
        case name, expiresIn = "expires_in"
    }

    /// A request for a token named `name` living `expiresIn`.
    public init(name: String? = nil, expiresIn: String? = nil) {
        self.name = name
        self.expiresIn = expiresIn
    }
}

/// An API token as lists show it (never the secret): `id`, `name`, `prefix`, `created_at`,
/// `expires_at`, `last_used_at`, `revoked_at`.
public struct TokenDocument: Codable, Hashable, Sendable {
    /// Store identity; `token revoke ID` and `DELETE /v1/me/tokens/{id}` take it.
    public var id: Int64
    /// What it is for.
    public var name: String
    /// The token's first characters, which log lines show.
    public var prefix: String
    /// When it was made.
    public var createdAt: Date
    /// When it stops working.
    public var expiresAt: Date
    /// When it was last used (to the minute), or null.
    public var lastUsedAt: JSONNullable<Date>
    /// When it was revoked, or null.
    public var revokedAt: JSONNullable<Date>

    enum CodingKeys: String, CodingKey {
        case id, name, prefix, createdAt = "created_at", expiresAt = "expires_at", lastUsedAt = "last_used_at", revokedAt = "revoked_at"
    }

    /// A document of these values.
    public init(id: Int64, name: String, prefix: String, createdAt: Date, expiresAt: Date, lastUsedAt: Date?, revokedAt: Date?) {
        self.id = id
        self.name = name
        self.prefix = prefix
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.lastUsedAt = JSONNullable(lastUsedAt)
        self.revokedAt = JSONNullable(revokedAt)
    }

    /// The document of `token`.
    public init(_ token: APIToken) {
        self.init(
            id: token.id.rawValue, name: token.name, prefix: token.prefix, createdAt: token.createdAt, expiresAt: token.expiresAt,
            lastUsedAt: token.lastUsedAt, revokedAt: token.revokedAt)
    }
}

/// A token just made, the only time its secret is shown: `token`, `id`, `name`, `prefix`,
/// `expires_at`.
public struct NewTokenDocument: Codable, Hashable, Sendable {
    /// The secret, for `Authorization: Bearer <token>`.
    public var token: String
    /// Store identity.
    public var id: Int64
    /// What it is for.
    public var name: String
    /// The token's first characters.
    public var prefix: String
    /// When it stops working.
    public var expiresAt: Date

    enum CodingKeys: String, CodingKey {
        case token, id, name, prefix, expiresAt = "expires_at"
    }

    /// A document of these values.
    public init(token: String, id: Int64, name: String, prefix: String, expiresAt: Date) {
        self.token = token
        self.id = id
        self.name = name
        self.prefix = prefix
        self.expiresAt = expiresAt
    }

    /// The document of `token` just made, whose secret is `secret`.
    public init(secret: String, token: APIToken) {
        self.init(token: secret, id: token.id.rawValue, name: token.name, prefix: token.prefix, expiresAt: token.expiresAt)
    }
}
