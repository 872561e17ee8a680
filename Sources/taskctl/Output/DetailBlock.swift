import CommandLineToolkit
import SafeText
/// One object for a person: a heading line, then `label  value` lines with the values aligned.
/// Multi-line values (notes) continue on indented lines; control characters show as spaces.
struct DetailBlock {
    /// The first line, e.g. `CORE-7  Fix the login page`.
    var heading: String
    /// Labelled values, in display order.
    var lines: [(label: String, value: String)] = []

    /// Adds one labelled value.
    mutating func add(_ label: String, _ value: String) {
        lines.append((label, value))
    }

    /// The block, each line ending in a newline.
    func render() -> String {
        let width = lines.map(\.label.count).max() ?? 0
        let indent = String(repeating: " ", count: width + 4)
        var text = TerminalText.clean(heading) + "\n"
        for (label, value) in lines {
            let valueLines = value.split(separator: "\n", omittingEmptySubsequences: false).map { TerminalText.clean(String($0)) }
            text += "  " + label + String(repeating: " ", count: width - label.count + 2) + (valueLines.first ?? "") + "\n"
            for more in valueLines.dropFirst() { text += indent + more + "\n" }
        }
        return text
    }
}
