import Foundation
import TaskCore

/// A user in JSON: `id`, `email`, `display_name`, `disabled`, `created_at`.
public struct UserDocument: Codable, Hashable, Sendable {
    /// Store identity.
    public var id: Int64
    /// The lowercased email.
    public var email: String
    /// The display name.
    public var displayName: String
    /// Whether the account is disabled.
    public var disabled: Bool
    /// When the user was created.
    public var createdAt: Date

    enum CodingKeys: String, CodingKey {
        case id, email, displayName = "display_name", disabled, createdAt = "created_at"
    }

    /// The document of `user`.
    public init(_ user: User) {
        id = user.id.rawValue
        email = user.email
        displayName = user.displayName
        disabled = user.isDisabled
        createdAt = user.createdAt
    }

    /// The user this document describes.
    public var user: User {
        User(id: UserID(id), email: email, displayName: displayName, isDisabled: disabled, createdAt: createdAt)
    }
}
