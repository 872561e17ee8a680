/// A validated task for the import port: a draft that has an external id, which is what
/// makes re-running an import idempotent.
public struct TaskImportDraft: Hashable, Sendable {
    /// The fields of a task an import row may leave as they are.
    public struct Fields: OptionSet, Hashable, Sendable {
        public let rawValue: Int16
        public init(rawValue: Int16) { self.rawValue = rawValue }

        public static let notes = Fields(rawValue: 1 << 0)
        public static let status = Fields(rawValue: 1 << 1)
        public static let priority = Fields(rawValue: 1 << 2)
        public static let dueDate = Fields(rawValue: 1 << 3)
        public static let assignee = Fields(rawValue: 1 << 4)
        public static let category = Fields(rawValue: 1 << 5)
    }

    /// The validated fields.
    public let draft: TaskDraft
    /// The draft's external id, unique within the team.
    public let externalID: String
    /// The fields the row does not supply (a file without their columns): an update of an
    /// existing task keeps the task's values of these; a new task takes the draft's (the
    /// defaults). The title is always supplied, the external id is the key.
    public let keeps: Fields

    /// Wraps a draft; one without an external id is a validation error on `externalID`.
    public init(_ draft: TaskDraft, keeping keeps: Fields = []) throws {
        guard let externalID = draft.externalID else {
            throw TaskError.validation(field: "externalID", reason: "an imported task needs an external id")
        }
        self.draft = draft
        self.externalID = externalID
        self.keeps = keeps
    }
}
