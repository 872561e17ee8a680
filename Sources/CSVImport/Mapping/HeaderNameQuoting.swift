/// Header names as messages show them: quoted, with the characters one cannot see (a second
/// byte-order mark, NULs, control and format characters) escaped, so `"\ufeffTitle"` explains
/// why a column that reads "Title" on screen matched nothing.
enum HeaderNameQuoting {
    /// `name` in double quotes, invisible characters as `\uXXXX` (`\t`, `\r`, `\n` for those),
    /// and `"` and `\` escaped.
    static func quoted(_ name: String) -> String {
        var text = "\""
        for scalar in name.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\t": text += "\\t"
            case "\r": text += "\\r"
            case "\n": text += "\\n"
            default:
                if isInvisible(scalar) {
                    let digits = String(scalar.value, radix: 16)
                    text +=
                        scalar.value > 0xFFFF
                        ? "\\U" + String(repeating: "0", count: 8 - digits.count) + digits
                        : "\\u" + String(repeating: "0", count: 4 - digits.count) + digits
                } else {
                    text.unicodeScalars.append(scalar)
                }
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
        guard names.contains(where: { $0.unicodeScalars.contains(where: { isInvisible($0) || $0 == "\t" || $0 == "\r" || $0 == "\n" }) })
        else { return "" }
        return " (the header holds characters one cannot see, shown escaped: \\ufeff is a byte-order mark, \\u0000 a NUL; "
            + "remove them from the header line, or save the file again as UTF-8)"
    }

    /// Control, format, separator, private-use and unassigned code points.
    private static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .privateUse, .unassigned, .surrogate: true
        default: false
        }
    }
}
