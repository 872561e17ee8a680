/// The field separators `taskimport --delimiter` accepts.
///
/// Limited to the four that real spreadsheets write; any of them is one ASCII byte that can
/// never be confused with a quote or a line break.
public enum CSVDelimiter: String, Sendable, CaseIterable {
    /// `,` — the RFC 4180 default.
    case comma = ","
    /// `;` — what spreadsheets write in locales with a decimal comma.
    case semicolon = ";"
    /// A tab character, for TSV files.
    case tab = "\t"
    /// `|`.
    case pipe = "|"

    /// Parses a command-line value: one of its `spellings`, ignoring case.
    public init?(argument: String) {
        let spelling = argument.lowercased()
        guard let delimiter = Self.allCases.first(where: { $0.spellings.contains(spelling) }) else { return nil }
        self = delimiter
    }

    /// How a command-line value names it, lowercased: the character itself or its name (`comma`,
    /// `semicolon`, `tab` or `\t`, `pipe`).
    public var spellings: [String] {
        switch self {
        case .comma: [",", "comma"]
        case .semicolon: [";", "semicolon"]
        case .tab: ["\t", "\\t", "tab"]
        case .pipe: ["|", "pipe"]
        }
    }

    /// The separator whose byte is `byte`, if it is one of the four.
    init?(byte: UInt8) {
        guard let delimiter = Self.allCases.first(where: { $0.byte == byte }) else { return nil }
        self = delimiter
    }

    /// The byte the reader compares against.
    public var byte: UInt8 { rawValue.utf8.first! }
}
