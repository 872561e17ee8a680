import SafeText

/// Header names as messages show them: quoted, with the characters one cannot see (a second
/// byte-order mark, NULs, control and format characters) escaped as every message escapes
/// them (`TerminalText`), so `"<U+FEFF>Title"` explains why a column that reads "Title" on
/// screen matched nothing.
enum HeaderNameQuoting {
    /// `name` in double quotes, `"` and `\` escaped with a backslash, invisible characters as
    /// `TerminalText` shows them (`\x00`, `<U+FEFF>`, `\t`).
    static func quoted(_ name: String) -> String {
        var text = "\""
        for scalar in name.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            default:
                if let shown = TerminalText.escaped(scalar) { text += shown } else { text.unicodeScalars.append(scalar) }
            }
        }
        return text + "\""
    }

    /// The names quoted and joined with `, `.
    static func list(_ names: [String]) -> String {
        names.map(quoted).joined(separator: ", ")
    }

    /// The hint that goes after a message quoting `names`, when one of them holds a character
    /// shown escaped; empty otherwise.
    static func hint(for names: [String]) -> String {
        guard names.contains(where: TerminalText.needsEscaping) else { return "" }
        return " (the header holds characters one cannot see, shown escaped: <U+FEFF> is a byte-order mark, \\x00 a NUL; "
            + "remove them from the header line, or save the file again as UTF-8)"
    }
}
