/// Where a page of a task's history ended: the store's position of the last entry read (its
/// row id in PostgreSQL, its ordinal in memory). Opaque to users (a short base64url token);
/// a history only grows at its end, so a position stays valid while entries are added.
public struct HistoryCursor: Hashable, Sendable, CustomStringConvertible {
    /// The last entry's position in its store.
    public let position: Int64

    /// The position just after the entry the store placed at `position`.
    public init(position: Int64) {
        self.position = position
    }

    /// Decodes a token from `encoded`; anything else is a validation error on `cursor`.
    public init(encoded token: String) throws {
        guard let text = CursorToken.text(of: token), text.hasPrefix("h1."), let position = Int64(text.dropFirst(3)), position >= 0 else {
            throw TaskError.validation(field: "cursor", reason: "\"\(token)\" is not a cursor from a previous page of this history")
        }
        self.position = position
    }

    /// The opaque token to hand back to the caller.
    public var encoded: String { CursorToken.token(of: "h1.\(position)") }

    /// The opaque token.
    public var description: String { encoded }
}

/// Which page of a task's history to read: up to `limit` entries, oldest first, after `after`.
public struct HistoryQuery: Hashable, Sendable {
    /// The entries a page may hold.
    public static let limitRange = 1...1000
    /// The most entries the page holds.
    public var limit: Int
    /// Where the previous page ended; nil for the first.
    public var after: HistoryCursor?

    /// The page of up to `limit` entries after `after`.
    public init(limit: Int = 100, after: HistoryCursor? = nil) {
        self.limit = limit
        self.after = after
    }

    /// Checks the limit.
    public func validate() throws {
        try PageLimit.check(limit, in: Self.limitRange, of: "entries")
    }
}

/// One page of a task's history.
public struct HistoryPage: Hashable, Sendable {
    /// The entries, oldest first.
    public var entries: [TaskHistoryEntry]
    /// Where the next page starts; nil on the last page.
    public var nextCursor: HistoryCursor?

    /// A page and where the next begins.
    public init(entries: [TaskHistoryEntry], nextCursor: HistoryCursor?) {
        self.entries = entries
        self.nextCursor = nextCursor
    }
}

extension HistoryPage {
    /// Every entry of a history, oldest first, read with `read` a full page after another.
    public static func all(_ read: (HistoryQuery) async throws -> HistoryPage) async throws -> [TaskHistoryEntry] {
        var query = HistoryQuery(limit: HistoryQuery.limitRange.upperBound), entries: [TaskHistoryEntry] = []
        repeat {
            let page = try await read(query)
            entries += page.entries
            query.after = page.nextCursor
        } while query.after != nil
        return entries
    }
}

/// The one check of a page's size, for every paged read.
enum PageLimit {
    /// A validation error on `limit` unless `range` holds it; `items` names what a page holds.
    static func check(_ limit: Int, in range: ClosedRange<Int>, of items: String) throws {
        guard range.contains(limit) else {
            throw TaskError.validation(field: "limit", reason: "a page holds \(range.lowerBound) to \(range.upperBound) \(items), got \(limit)")
        }
    }
}
