/// One field's change in a history entry; values are as `TaskItem.historyValue(of:)` renders them.
public struct FieldChange: Hashable, Sendable {
    /// Which field changed.
    public var field: TaskField
    /// The value before, nil when it had none.
    public var old: String?
    /// The value after, nil when it has none.
    public var new: String?

    /// Records one field's change.
    public init(field: TaskField, old: String?, new: String?) {
        self.field = field
        self.old = old
        self.new = new
    }
}
