/// What an import does with a row whose external id already exists in the team.
public enum ImportConflictPolicy: String, NamedValue {
    /// How validation errors name this field.
    public static let fieldName = "onConflict"

    /// Overwrite the existing task's fields (counted unchanged when they already match).
    case update
    /// Leave the existing task as it is.
    case skip
    /// Refuse the whole import; nothing is written.
    case fail
}
