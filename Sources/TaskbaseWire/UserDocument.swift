import Foundation
import TaskCore

/// A user in JSON: `id`, `email`, `display_name`, `disabled`, `operator`, `created_at`.
public struct UserDocument: Codable, Hashable, Sendable {
    /// Store identity.
    public var id: Int64
    /// The lowercased email.
    public var email: String
    /// The display name.
    public var displayName: String
    /// Whether the account is disabled.
    public var disabled: Bool
    /// Whether the user is an operator (provisions users).
    public var isOperator: Bool
    /// When the user was created.
    public var createdAt: Date

    enum CodingKeys: String, CodingKey {
        case id, email, displayName = "display_name", disabled, isOperator = "operator", createdAt = "created_at"
    }

    /// Reads a document; one written before operators existed has `operator` false.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Int64.self, forKey: .id)
        email = try container.decode(String.self, forKey: .email)
        displayName = try container.decode(String.self, forKey: .displayName)
        disabled = try container.decode(Bool.self, forKey: .disabled)
        isOperator = try container.decodeIfPresent(Bool.self, forKey: .isOperator) ?? false
        createdAt = try container.decode(Date.self, forKey: .createdAt)
    }

    /// The document of `user`.
    public init(_ user: User) {
        id = user.id.rawValue
        email = user.email
        displayName = user.displayName
        disabled = user.isDisabled
        isOperator = user.isOperator
        createdAt = user.createdAt
    }

    /// The user this document describes.
    public var user: User {
        User(id: UserID(id), email: email, displayName: displayName, isDisabled: disabled, createdAt: createdAt, isOperator: isOperator)
    }
}
