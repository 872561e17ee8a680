/// A validated task for the import port: a draft that has an external id, which is what
/// makes re-running an import idempotent.
public struct TaskImportDraft: Hashable, Sendable {
    /// The validated fields.
    public let draft: TaskDraft
    /// The draft's external id, unique within the team.
    public let externalID: String

    /// Wraps a draft; one without an external id is a validation error on `externalID`.
    public init(_ draft: TaskDraft) throws {
        guard let externalID = draft.externalID else {
            throw TaskError.validation(field: "externalID", reason: "an imported task needs an external id")
        }
        self.draft = draft
        self.externalID = externalID
    }
}
