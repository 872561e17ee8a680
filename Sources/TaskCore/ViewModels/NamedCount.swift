/// A label and how many tasks it has, for the summary's breakdowns.
public struct NamedCount: Hashable, Sendable {
    /// The category or assignee as displayed.
    public var name: String
    /// How many tasks.
    public var count: Int

    /// Pairs a label with a count.
    public init(name: String, count: Int) {
        self.name = name
        self.count = count
    }

    /// The counts summed per name (empty ones dropped), largest first, ties by name.
    static func tally(_ counts: [(name: String, count: Int)]) -> [NamedCount] {
        Dictionary(counts.filter { $0.count > 0 }, uniquingKeysWith: +)
            .map { NamedCount(name: $0.key, count: $0.value) }
            .sorted { ($1.count, $0.name) < ($0.count, $1.name) }
    }
}
