/// A member's role in a team; each role can do everything the roles below it can.
public enum Role: String, NamedValue, Comparable {
    /// How validation errors name this field.
    public static let fieldName = "role"

    /// Reads tasks, history and the change feed.
    case viewer
    /// Also creates, edits, completes, assigns and deletes tasks, and imports.
    case member
    /// Also manages memberships (but not owners).
    case admin
    /// Also manages the team itself and its owners.
    case owner

    private var rank: Int {
        switch self {
        case .viewer: 0
        case .member: 1
        case .admin: 2
        case .owner: 3
        }
    }

    /// The role with its article, for sentences: "an admin", "a member".
    public var withArticle: String {
        (self == .admin || self == .owner ? "an " : "a ") + rawValue
    }

    /// Viewer < member < admin < owner.
    public static func < (lhs: Role, rhs: Role) -> Bool { lhs.rank < rhs.rank }
}
