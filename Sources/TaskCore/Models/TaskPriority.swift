/// How urgent a task is; `rank` orders them for sorting (urgent highest).
public enum TaskPriority: String, NamedValue, Comparable {
    /// How validation errors name this field.
    public static let fieldName = "priority"

    /// No priority given.
    case none
    /// Can wait.
    case low
    /// Normal.
    case medium
    /// Soon.
    case high
    /// Now.
    case urgent

    /// 0 for `none` up to 4 for `urgent`; the sort key stores use.
    public var rank: Int { Self.allCases.firstIndex(of: self)! }

    /// By rank, `none` lowest.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rank < rhs.rank }
}
