/// An edit to one optional field: leave it, or set it (to a value or to nothing).
public enum Patch<Value: Hashable & Sendable>: Hashable, Sendable {
    /// Keep the current value.
    case unchanged
    /// Replace the current value.
    case set(Value)
}
