/// Where a task is in its life.
public enum TaskStatus: String, NamedValue, Comparable {
    /// How validation errors name this field.
    public static let fieldName = "status"

    /// Not started.
    case open
    /// Someone is on it.
    case inProgress = "in_progress"
    /// Finished; a done task is never overdue.
    case done

    /// Open < in progress < done.
    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
