/// Which tasks to list by category.
public enum CategoryFilter: Hashable, Sendable {
    /// Tasks without a category.
    case uncategorized
    /// Tasks in one category, compared case-insensitively.
    case named(String)
}
