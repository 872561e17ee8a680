/// A count with its noun, singular for one: `1 task`, `3 tasks`, `12,345 tasks` (grouped as
/// `ProgressLine.grouped` does). Nouns that take more than an `s` are not for this.
public enum Counted {
    /// `count` and `noun`, plural unless `count` is 1.
    public static func phrase(_ count: Int, _ noun: String) -> String {
        "\(ProgressLine.grouped(count)) \(noun)\(count == 1 ? "" : "s")"
    }
}
