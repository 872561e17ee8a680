/// The text encodings `taskimport --encoding` reads. Everything but UTF-8 is turned into UTF-8
/// by glibc's iconv as it streams in; a byte-order mark at the start overrides the choice.
public enum TextEncoding: String, Sendable, CaseIterable {
    /// UTF-8, the default; a UTF-8 byte-order mark is dropped.
    case utf8 = "utf-8"
    /// UTF-16 whose byte order the byte-order mark gives; without one, the first two bytes
    /// decide (a NUL first means big-endian), else little-endian, as Windows writes it.
    case utf16 = "utf-16"
    /// UTF-16, little-endian: Excel's "Unicode Text".
    case utf16LE = "utf-16le"
    /// UTF-16, big-endian.
    case utf16BE = "utf-16be"
    /// Windows-1252, what Excel on Windows writes for "CSV" in western European locales.
    case windows1252 = "windows-1252"
    /// ISO 8859-1 (Latin-1): every byte is the code point of the same number.
    case latin1

    /// Parses a command-line value, ignoring case and punctuation: `utf-8`, `UTF8`, `utf-16`,
    /// `utf-16le`, `utf-16be`, `windows-1252` (or `cp1252`), `latin1` (or `iso-8859-1`).
    public init?(argument: String) {
        let key = Self.argumentKey(argument)
        guard let encoding = Self.allCases.first(where: { $0.argumentKeys.contains(key) }) else { return nil }
        self = encoding
    }

    /// What of a command-line value names an encoding: its letters and digits, lowercased.
    public static func argumentKey(_ argument: String) -> String {
        String(argument.lowercased().filter { $0.isLetter || $0.isNumber })
    }

    /// The `argumentKey`s that name this encoding.
    public var argumentKeys: [String] {
        switch self {
        case .utf8: ["utf8"]
        case .utf16: ["utf16"]
        case .utf16LE: ["utf16le"]
        case .utf16BE: ["utf16be"]
        case .windows1252: ["windows1252", "cp1252", "win1252"]
        case .latin1: ["latin1", "iso88591", "l1"]
        }
    }

    /// The name people know it by, for messages: `UTF-8`, `UTF-16LE`, `Windows-1252`.
    public var displayName: String {
        switch self {
        case .utf8: "UTF-8"
        case .utf16: "UTF-16"
        case .utf16LE: "UTF-16LE"
        case .utf16BE: "UTF-16BE"
        case .windows1252: "Windows-1252"
        case .latin1: "Latin-1"
        }
    }

    /// The `--encoding` value that reads a file in this encoding.
    public var optionValue: String {
        switch self {
        case .utf16LE, .utf16BE: TextEncoding.utf16.rawValue
        default: rawValue
        }
    }

    /// iconv's name for the encoding; nil for UTF-8, which is read as it is.
    var iconvName: String? {
        switch self {
        case .utf8, .utf16: nil
        case .utf16LE: "UTF-16LE"
        case .utf16BE: "UTF-16BE"
        case .windows1252: "WINDOWS-1252"
        case .latin1: "ISO-8859-1"
        }
    }

    /// How many bytes one undecodable unit has: two for UTF-16, one otherwise.
    var unitSize: Int {
        self == .utf16LE || self == .utf16BE || self == .utf16 ? 2 : 1
    }

    /// The bytes of Windows-1252 that name no character (glibc and Python refuse them).
    static let undefinedInWindows1252: Set<UInt8> = [0x81, 0x8D, 0x8F, 0x90, 0x9D]

    /// The single-byte encoding bytes that are not UTF-8 most likely are: Windows-1252, or
    /// Latin-1 when they include one of the bytes Windows-1252 leaves undefined. (UTF-16 shows
    /// itself sooner, by the NULs of its first line.)
    static func guess(badBytes: [UInt8]) -> TextEncoding {
        badBytes.contains(where: undefinedInWindows1252.contains) ? .latin1 : .windows1252
    }
}
