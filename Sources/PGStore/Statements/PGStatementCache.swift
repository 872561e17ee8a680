/// The statements one session has prepared, keyed by SQL text, least recently used first out.
///
/// Only plannable statements (SELECT, INSERT, UPDATE, DELETE, WITH, VALUES) are cached:
/// utility statements gain nothing from a plan, and some (`CREATE INDEX CONCURRENTLY`,
/// `VACUUM`) must not share a round trip with anything else.
///
/// A lookup first compares the text with the few statements found last (`recent`) before it
/// hashes it: hot statements' text is made once, so it is the very string seen before, and
/// `==` on one string is immediate, where hashing reads all of its (often kilobytes of) text.
struct PGStatementCache {
    struct Entry {
        let sql: String
        let name: String
        let parameterTypes: [UInt32]
        var lastUse: UInt64
    }

    let capacity: Int
    /// The prepared statements, in no particular order.
    private var entries: [Entry] = []
    /// Where each statement's text is in `entries`.
    private var positions: [String: Int] = [:]
    /// Positions in `entries` of the statements `lookup` found last, overwritten in turn;
    /// emptied whenever an entry is removed, since that moves another.
    private(set) var recent: [Int] = []
    private var nextRecent = 0
    private static let recentCapacity = 4
    private var useCounter: UInt64 = 0
    private var nameCounter = 0
    /// Statements evicted (or invalidated) on the server side still to be deallocated.
    var pendingDeallocations: [String] = []

    init(capacity: Int) {
        self.capacity = capacity
        recent.reserveCapacity(Self.recentCapacity)
    }

    var count: Int { entries.count }

    /// The prepared statement for `query`, marking it used; nil when not prepared yet.
    mutating func lookup(_ query: PGQuery) -> String? {
        guard let position = position(of: query.sql) else { return nil }
        guard entries[position].parameterTypes.elementsEqual(query.parameters.lazy.map(\.typeOID)) else { return nil }
        useCounter &+= 1
        entries[position].lastUse = useCounter
        return entries[position].name
    }

    /// Where `sql` is in `entries`: among the recent ones by comparison, else by hashing.
    private mutating func position(of sql: String) -> Int? {
        for position in recent where entries[position].sql == sql { return position }
        guard let position = positions[sql] else { return nil }
        if recent.count < Self.recentCapacity {
            recent.append(position)
        } else {
            recent[nextRecent] = position
            nextRecent = (nextRecent + 1) % Self.recentCapacity
        }
        return position
    }

    /// True when `query`'s text is prepared, whatever its parameter types.
    func contains(sql: String) -> Bool {
        positions[sql] != nil
    }

    /// Records a new statement for `query` and returns its name, evicting the least recently
    /// used one when full.
    mutating func insert(_ query: PGQuery) -> String {
        if entries.count >= capacity, let oldest = entries.indices.min(by: { entries[$0].lastUse < entries[$1].lastUse }) {
            pendingDeallocations.append(entries[oldest].name)
            removeEntry(at: oldest)
        }
        nameCounter += 1
        useCounter &+= 1
        let name = "pgstore_\(nameCounter)"
        positions[query.sql] = entries.count
        entries.append(Entry(sql: query.sql, name: name, parameterTypes: query.parameters.map(\.typeOID), lastUse: useCounter))
        return name
    }

    /// Forgets statement `name` for `sql`: the server does not have it (its prepare failed).
    mutating func remove(sql: String, name: String) {
        guard let position = positions[sql], entries[position].name == name else { return }
        removeEntry(at: position)
    }

    /// Forgets statement `name` for `sql` and deallocates it on the server later.
    mutating func invalidate(sql: String, name: String) {
        guard let position = positions[sql], entries[position].name == name else { return }
        removeEntry(at: position)
        pendingDeallocations.append(name)
    }

    /// Removes the entry at `position`, the last entry taking its place.
    private mutating func removeEntry(at position: Int) {
        positions.removeValue(forKey: entries[position].sql)
        if position != entries.count - 1 {
            entries.swapAt(position, entries.count - 1)
            positions[entries[position].sql] = position
        }
        entries.removeLast()
        recent.removeAll(keepingCapacity: true)
        nextRecent = 0
    }

    /// True for statements worth preparing: those the planner plans.
    static func isCacheable(_ sql: String) -> Bool {
        var keyword: UInt64 = 0
        var length = 0
        for byte in sql.utf8 {
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\t"), UInt8(ascii: "\r"), UInt8(ascii: "("):
                if length > 0 { return plannableKeywords.contains(keyword) }
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
                if length == 7 { return false }
                keyword = keyword << 8 | UInt64(byte | 0x20)
                length += 1
            default:
                return false
            }
        }
        return length > 0 && plannableKeywords.contains(keyword)
    }

    /// The plannable keywords, lowercase, packed into integers as `isCacheable` reads them.
    private static let plannableKeywords: Set<UInt64> = Set(
        ["select", "insert", "update", "delete", "with", "values"].map { word in
            word.utf8.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        })
}
