import SafeText

/// An aligned plain-text table for people reading a terminal: a header row, then data rows.
///
/// Cells go through `TerminalText.clean`: newlines and tabs show as spaces, escape sequences and
/// invisible characters escaped, so a task title can neither break the layout nor drive the terminal.
public struct TextTable: Sendable {
    /// Which side of its column a cell sticks to.
    public enum Alignment: Sendable {
        /// Text: left-aligned.
        case left
        /// Numbers: right-aligned.
        case right
    }

    /// One column's header and layout.
    public struct Column: Sendable {
        /// The header text.
        public var header: String
        /// How cells are aligned.
        public var alignment: Alignment
        /// Cells wider than this are cut and end with "…"; nil never cuts.
        public var maxWidth: Int?

        /// Declares a column.
        public init(_ header: String, alignment: Alignment = .left, maxWidth: Int? = nil) {
            self.header = header
            self.alignment = alignment
            self.maxWidth = maxWidth
        }
    }

    /// The columns, in display order.
    public let columns: [Column]
    /// The data rows added so far.
    public private(set) var rows: [[String]] = []

    /// A table with these columns and no rows.
    public init(columns: [Column]) {
        self.columns = columns
    }

    /// A table of left-aligned, uncut columns with these headers.
    public init(headers: [String]) {
        self.init(columns: headers.map { Column($0) })
    }

    /// Adds a row; it must have one cell per column.
    public mutating func append(_ row: [String]) {
        precondition(row.count == columns.count, "a row has \(row.count) cells for \(columns.count) columns")
        rows.append(row)
    }

    /// The table as lines separated by two spaces between columns, each line ending in a newline.
    public func render() -> String {
        let header = columns.map { TerminalText.clean($0.header) }
        let cells = rows.map { row in zip(row, columns).map { Self.fit(TerminalText.clean($0), to: $1.maxWidth) } }
        let widths = columns.indices.map { index in
            ([header] + cells).map { DisplayWidth.measure($0[index]) }.max() ?? 0
        }
        return ([header] + cells).map { line in
            var text = ""
            for (index, cell) in line.enumerated() {
                let padding = String(repeating: " ", count: widths[index] - DisplayWidth.measure(cell))
                let isLast = index == line.count - 1
                switch columns[index].alignment {
                case .left: text += cell + (isLast ? "" : padding)
                case .right: text += padding + cell
                }
                if !isLast { text += "  " }
            }
            return text + "\n"
        }.joined()
    }

    private static func fit(_ cell: String, to maxWidth: Int?) -> String {
        guard let maxWidth, DisplayWidth.measure(cell) > maxWidth else { return cell }
        var cut = ""
        var used = 0
        for character in cell {
            let width = DisplayWidth.measure(character)
            if used + width > maxWidth - 1 { break }
            cut.append(character)
            used += width
        }
        return cut + "…"
    }
}
