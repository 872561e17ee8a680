/// The simplest correct RFC 4180 writer, to produce test input independently of the reader:
/// a field is quoted when it holds the delimiter, a quote or a line break, quotes doubled.
///
/// It works on Unicode scalars, not characters: a quote followed by a combining accent is one
/// `Character` but still a quote to CSV.
struct RFC4180Writer {
    var delimiter: Unicode.Scalar = ","
    var lineBreak = "\r\n"

    func field(_ text: String) -> String {
        let special: Set<Unicode.Scalar> = [delimiter, "\"", "\n", "\r"]
        guard text.unicodeScalars.contains(where: special.contains) else { return text }
        var quoted = String.UnicodeScalarView()
        quoted.append("\"")
        for scalar in text.unicodeScalars {
            quoted.append(scalar)
            if scalar == "\"" { quoted.append("\"") }
        }
        quoted.append("\"")
        return String(quoted)
    }

    func document(_ records: [[String]], finalLineBreak: Bool = true) -> String {
        // A lone empty field is written as "" so that it is not a blank line.
        let lines = records.map { $0 == [""] ? "\"\"" : $0.map(field).joined(separator: String(delimiter)) }
        return lines.joined(separator: lineBreak) + (finalLineBreak ? lineBreak : "")
    }
}
