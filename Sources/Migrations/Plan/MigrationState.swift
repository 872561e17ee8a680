/// Where one migration stands, comparing the folder with the history.
public enum MigrationState: String, Sendable, Codable, CaseIterable {
    /// In the history, file unchanged.
    case applied
    /// Not in the history, numbered above every applied migration: `up` will run it.
    case pending
    /// In the history, but the file's bytes (or name) differ from what was applied.
    case changed
    /// In the history, but no file has its version any more.
    case missing
    /// Not in the history, yet numbered below the newest applied migration.
    case outOfOrder = "out_of_order"
    /// In the history, newer than every file of a folder that holds all the older applied
    /// ones: applied by a newer release of the programs, which were then rolled back. `up`
    /// has nothing to do; `down` cannot run it (its down section is in that newer release).
    case ahead

    /// True for the states that stop every `up`, `down` and `verify`.
    public var isDrift: Bool {
        self == .changed || self == .missing || self == .outOfOrder
    }
}
