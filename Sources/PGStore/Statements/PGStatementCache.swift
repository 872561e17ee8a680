/// The statements one session has prepared, keyed by SQL text, least recently used first out.
///
/// Only plannable statements (SELECT, INSERT, UPDATE, DELETE, WITH, VALUES) are cached:
/// utility statements gain nothing from a plan, and some (`CREATE INDEX CONCURRENTLY`,
/// `VACUUM`) must not share a round trip with anything else.
struct PGStatementCache {
    struct Entry {
        var name: String
        var parameterTypes: [UInt32]
        var lastUse: UInt64
    }

    let capacity: Int
    private var entries: [String: Entry] = [:]
    private var useCounter: UInt64 = 0
    private var nameCounter = 0
    /// Statements evicted (or invalidated) on the server side still to be deallocated.
    var pendingDeallocations: [String] = []

    init(capacity: Int) {
        self.capacity = capacity
    }

    var count: Int { entries.count }

    /// The prepared statement for `query`, marking it used; nil when not prepared yet.
    mutating func lookup(_ query: PGQuery) -> String? {
        guard let position = entries.index(forKey: query.sql) else { return nil }
        guard entries.values[position].parameterTypes.elementsEqual(query.parameters.lazy.map(\.typeOID)) else { return nil }
        useCounter &+= 1
        entries.values[position].lastUse = useCounter
        return entries.values[position].name
    }

    /// True when `query`'s text is prepared, whatever its parameter types.
    func contains(sql: String) -> Bool {
        entries[sql] != nil
    }

    /// Records a new statement for `query` and returns its name, evicting the least recently
    /// used one when full.
    mutating func insert(_ query: PGQuery) -> String {
        if entries.count >= capacity, let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse }) {
            entries.removeValue(forKey: oldest.key)
            pendingDeallocations.append(oldest.value.name)
        }
        nameCounter += 1
        useCounter &+= 1
        let name = "pgstore_\(nameCounter)"
        entries[query.sql] = Entry(name: name, parameterTypes: query.parameters.map(\.typeOID), lastUse: useCounter)
        return name
    }

    /// Forgets statement `name` for `sql`: the server does not have it (its prepare failed).
    mutating func remove(sql: String, name: String) {
        if entries[sql]?.name == name { entries.removeValue(forKey: sql) }
    }

    /// Forgets statement `name` for `sql` and deallocates it on the server later.
    mutating func invalidate(sql: String, name: String) {
        guard entries[sql]?.name == name else { return }
        entries.removeValue(forKey: sql)
        pendingDeallocations.append(name)
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
