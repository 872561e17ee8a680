/// The fields of a task a person can change; history names changes by these.
public enum TaskField: String, NamedValue {
    /// How validation errors name this field.
    public static let fieldName = "field"

    /// The title.
    case title
    /// The notes.
    case notes
    /// The status.
    case status
    /// The priority.
    case priority
    /// The due date.
    case dueDate = "due_date"
    /// The assignee.
    case assignee
    /// The category.
    case category
    /// The external id.
    case externalID = "external_id"
}
