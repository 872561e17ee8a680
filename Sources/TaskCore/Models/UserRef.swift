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

    /// "user #42" or "user ann@example.com", as error messages name users.
    public var description: String {
        switch self {
        case .id(let id): "user #\(id)"
        case .email(let email): "user \(email)"
        }
    }
}
