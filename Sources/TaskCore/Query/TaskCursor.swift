import Foundation

/// Where a page ended: the sort, its direction and the last row's keyset position. Opaque to
/// users (a short base64url token); stable under concurrent inserts because it names a
/// position in the order, not an offset.
public struct TaskCursor: Hashable, Sendable, CustomStringConvertible {
    /// The order the cursor belongs to.
    public let sort: TaskSort
    /// Whether that order is descending.
    public let descending: Bool
    /// The last row's `TaskSort.primaryKey`.
    public let primaryKey: Int64
    /// The last row's task number (the tie-breaker).
    public let number: Int64

    /// The position just after `task` in the given order.
    public init(after task: TaskItem, sort: TaskSort, descending: Bool) {
        self.sort = sort
        self.descending = descending
        self.primaryKey = sort.primaryKey(of: task, descending: descending)
        self.number = task.key.number
    }

    /// Decodes a token from `encoded`; anything else is a validation error on `cursor`.
    public init(encoded token: String) throws {
        guard let text = CursorToken.text(of: token) else { throw Self.invalid(token) }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0] == "t1", let sort = TaskSort(rawValue: String(parts[1])),
            parts[2] == "a" || parts[2] == "d",
            let primaryKey = Int64(parts[3]), let number = Int64(parts[4])
        else {
            throw Self.invalid(token)
        }
        self.sort = sort
        self.descending = parts[2] == "d"
        self.primaryKey = primaryKey
        self.number = number
    }

    /// The opaque token to hand back to the caller.
    public var encoded: String {
        CursorToken.token(of: "t1.\(sort.rawValue).\(descending ? "d" : "a").\(primaryKey).\(number)")
    }

    /// The opaque token.
    public var description: String { encoded }

    /// Whether `task` comes after this position in the cursor's order.
    public func precedes(_ task: TaskItem) -> Bool {
        let key = (sort.primaryKey(of: task, descending: descending), task.key.number)
        return descending ? key < (primaryKey, number) : key > (primaryKey, number)
    }

    private static func invalid(_ token: String) -> TaskError {
        .validation(field: "cursor", reason: "\"\(token)\" is not a cursor from a previous page of this list")
    }
}

/// A cursor's text as the short opaque token callers hand back (base64url, unpadded).
enum CursorToken {
    static func token(of text: String) -> String {
        Base64URL.encode(text.utf8)
    }

    /// The text of `token`; nil when it is not base64url of UTF-8.
    static func text(of token: String) -> String? {
        guard let bytes = Base64URL.decode(token) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }
}
