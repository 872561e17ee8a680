import Foundation

/// A person who acts on teams and tasks; a disabled user keeps their history but can do nothing.
public struct User: Hashable, Sendable {
    /// Store identity.
    public var id: UserID
    /// Unique, stored lowercased; how people name the user on the command line.
    public var email: String
    /// The name shown in lists.
    public var displayName: String
    /// When true every operation by this user is refused.
    public var isDisabled: Bool
    /// When the user was created.
    public var createdAt: Date
    /// An operator provisions users (adds, disables, enables them, makes tokens for others);
    /// it grants nothing inside any team.
    public var isOperator: Bool

    /// Builds a user as a store read it.
    public init(id: UserID, email: String, displayName: String, isDisabled: Bool, createdAt: Date, isOperator: Bool = false) {
        self.id = id
        self.email = email
        self.displayName = displayName
        self.isDisabled = isDisabled
        self.createdAt = createdAt
        self.isOperator = isOperator
    }
}
