/// Text from a database or a file made safe to show a person: it can neither send escape
/// sequences to the terminal (ESC, OSC, other C0 and C1 controls) nor hide or reorder what is
/// shown (bidi overrides and isolates, zero-width characters). Each such character appears
/// visibly, as `\x1B` or `<U+202E>`, so `invoice‮fdp.exe` is seen for what it is.
///
/// Data formats (JSON, CSV to a file or pipe) are written exactly; this is for human output.
/// The one form of visible escaping: the programs' tables and messages (CommandLineToolkit)
/// and CSVImport's messages about a file's header both use it.
public enum TerminalText {
    /// `text` for one line of a table or message: tabs and line breaks become spaces (so the
    /// layout holds), every other control or invisible character is shown escaped.
    public static func clean(_ text: String) -> String {
        render(text, lineBreaks: false)
    }

    /// `text` with every control or invisible character shown escaped, line breaks and tabs
    /// included (`\n`, `\t`), for a value that must be seen exactly.
    public static func escape(_ text: String) -> String {
        render(text, lineBreaks: true)
    }

    /// Whether `text` holds a character `escape` would change.
    public static func needsEscaping(_ text: String) -> Bool {
        text.unicodeScalars.contains { visible($0, lineBreaks: true) != nil }
    }

    /// How `escape` shows `scalar` (`\x1B`, `<U+FEFF>`, `\t`), or nil when it is shown as itself:
    /// for code that quotes a value in its own way and escapes the rest as every message does.
    public static func escaped(_ scalar: Unicode.Scalar) -> String? {
        visible(scalar, lineBreaks: true)
    }

    private static func render(_ text: String, lineBreaks: Bool) -> String {
        guard text.unicodeScalars.contains(where: { visible($0, lineBreaks: lineBreaks) != nil }) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if let shown = visible(scalar, lineBreaks: lineBreaks) {
                result.append(contentsOf: shown.unicodeScalars)
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }

    /// How `scalar` is shown, or nil when it is shown as itself.
    private static func visible(_ scalar: Unicode.Scalar, lineBreaks: Bool) -> String? {
        switch scalar.value {
        case 0x09: return lineBreaks ? "\\t" : " "
        case 0x0A: return lineBreaks ? "\\n" : " "
        case 0x0D: return lineBreaks ? "\\r" : " "
        case 0x00..<0x20, 0x7F..<0xA0:
            let hex = String(scalar.value, radix: 16, uppercase: true)
            return "\\x" + (hex.count < 2 ? "0" : "") + hex
        default:
            switch scalar.properties.generalCategory {
            case .format, .lineSeparator, .paragraphSeparator, .privateUse, .surrogate, .unassigned:
                return "<U+" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4) + ">"
            default:
                return nil
            }
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
