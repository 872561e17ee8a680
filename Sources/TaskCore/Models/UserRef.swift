import Foundation

/// How a caller names a user: by id (programs) or by email (people).
public enum UserRef: Hashable, Sendable, CustomStringConvertible {
    /// A known store identity.
    case id(UserID)
    /// An email address; compared case-insensitively.
    case email(String)

    /// Reads `#42` or `42` as an id and anything else as an email.
    public init(_ text: String) {
        let trimmed = text.trimmingSpaces()
        let digits = trimmed.hasPrefix("#") ? String(trimmed.dropFirst()) : trimmed
        if let number = Int64(digits), number > 0 {
            self = .id(UserID(number))
        } else {
            self = .email(trimmed)
        }
    }

    /// Whether this names `user`: its id, or its email compared as emails are stored
    /// (`UserFields.normalizedEmailKey`).
    public func names(_ user: User) -> Bool {
        switch self {
        case .id(let id): user.id == id
        case .email(let email): UserFields.normalizedEmailKey(email) == UserFields.normalizedEmailKey(user.email)
        }
    }

    /// "#42" or "ann@example.com": the user as the caller named them, and nothing more.
    public var written: String {
        switch self {
        case .id(let id): "#\(id)"
        case .email(let email): email
        }
    }

    /// "user #42" or "user ann@example.com", as error messages name users.
    public var description: String {
        switch self {
        case .id(let id): "user #\(id)"
        case .email(let email): "user \(email)"
        }
    }
}
