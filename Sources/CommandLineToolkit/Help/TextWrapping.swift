/// Breaks prose into lines no wider than a given width, for help text.
enum TextWrapping {
    /// The words of each paragraph of `text` (paragraphs split on newlines) wrapped to `width` columns.
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            for word in paragraph.split(separator: " ") {
                if !line.isEmpty && DisplayWidth.measure(line) + 1 + DisplayWidth.measure(String(word)) > width {
                    lines.append(line)
                    line = ""
                }
                line += line.isEmpty ? String(word) : " " + word
            }
            lines.append(line)
        }
        return lines
    }
}
