/// What an import did, counted per row.
public struct ImportSummary: Hashable, Sendable {
    /// New tasks created.
    public var inserted: Int
    /// Existing tasks changed.
    public var updated: Int
    /// Existing tasks that already matched their row.
    public var unchanged: Int
    /// Existing tasks left alone by the `skip` policy.
    public var skipped: Int

    /// A summary with the given counts.
    public init(inserted: Int = 0, updated: Int = 0, unchanged: Int = 0, skipped: Int = 0) {
        self.inserted = inserted
        self.updated = updated
        self.unchanged = unchanged
        self.skipped = skipped
    }

    /// Every row the import looked at.
    public var total: Int { inserted + updated + unchanged + skipped }
}
