/// How the importer's advice names its options: as `taskimport` flags (`--max-errors 0`) or as
/// the query parameters of `POST /v1/teams/{team}/imports` (`max-errors=0`), so a reason tells
/// each caller what it can actually send. The HTTP route reads under `.query`.
public enum OptionSpelling: Sendable {
    case flag, query

    /// The spelling advice is written in here; `.flag` unless the caller says otherwise.
    @TaskLocal public static var current: OptionSpelling = .flag

    /// Option `name` given `value`: `--encoding windows-1252`, or `encoding=windows-1252`.
    public static func option(_ name: String, _ value: String) -> String {
        switch current {
        case .flag: "--\(name) \(value)"
        case .query: "\(name)=\(value)"
        }
    }

    /// The column-mapping option itself: `--map`, or `map`.
    static var mapOption: String {
        switch current {
        case .flag: "--map"
        case .query: "map"
        }
    }

    /// How to see every bad row of a file without importing it.
    static var listingEveryBadRow: String {
        switch current {
        case .flag: "list them all with --dry-run --max-errors N --reject-file PATH"
        case .query: "list them all with dry-run=true&max-errors=N (the answer lists each refused row)"
        }
    }
}
