import Foundation

/// The orders a task list can have. Every order is keyset-paginated on the pair
/// (`primaryKey`, task number), which is unique within a team.
public enum TaskSort: String, NamedValue {
    /// How validation errors name this field.
    public static let fieldName = "sort"

    /// By task number (creation order).
    case number
    /// By creation time.
    case created
    /// By last change time.
    case updated
    /// By due date; tasks without one come last in both directions.
    case due
    /// By priority rank.
    case priority

    /// The sort key of `task` as a 64-bit integer, so a cursor is two numbers whatever the order:
    /// number; microseconds since 1970; days since 1970 (no due date: `Int64.max` ascending,
    /// `Int64.min` descending); priority rank 0-4.
    public func primaryKey(of task: TaskItem, descending: Bool) -> Int64 {
        switch self {
        case .number: task.key.number
        case .created: Self.microseconds(task.createdAt)
        case .updated: Self.microseconds(task.updatedAt)
        case .due: task.dueDate?.daysSinceEpoch ?? (descending ? Int64.min : Int64.max)
        case .priority: Int64(task.priority.rank)
        }
    }

    /// Microseconds since 1970, the precision of a Postgres `timestamptz`; rounded to the
    /// nearest so that a time read back from the database gives the same key it was stored with.
    public static func microseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
    }
}
