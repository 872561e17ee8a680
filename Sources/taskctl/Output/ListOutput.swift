import CommandLineToolkit

/// How one kind of item is listed: table columns for people and CSV columns for scripts. The
/// CSV header names are the JSON field names, so both machine formats speak the same words.
struct ListOutput<Item>: Sendable {
    /// One table column: header, layout, and the cell of an item.
    struct TableColumn: Sendable {
        /// The column.
        var column: TextTable.Column
        /// The cell of an item.
        var cell: @Sendable (Item) -> String

        /// A column headed `header`.
        init(_ header: String, alignment: TextTable.Alignment = .left, maxWidth: Int? = nil, _ cell: @escaping @Sendable (Item) -> String) {
            column = TextTable.Column(header, alignment: alignment, maxWidth: maxWidth)
            self.cell = cell
        }
    }

    /// One CSV column: its name and the field of an item (nil writes an empty field).
    struct CSVColumn: Sendable {
        /// The header, the same as the JSON field name.
        var name: String
        /// The field of an item.
        var field: @Sendable (Item) -> String?

        /// A column named `name`.
        init(_ name: String, _ field: @escaping @Sendable (Item) -> String?) {
            self.name = name
            self.field = field
        }
    }

    /// The table's columns.
    var table: [TableColumn]
    /// The CSV's columns.
    var csv: [CSVColumn]

    /// `items` as an aligned table.
    func renderTable(_ items: [Item]) -> String {
        var text = TextTable(columns: table.map(\.column))
        for item in items { text.append(table.map { $0.cell(item) }) }
        return text.render()
    }

    /// `items` as CSV with a header row.
    func renderCSV(_ items: [Item]) -> String {
        CSVWriter.format([csv.map(\.name)] + items.map { item in csv.map { $0.field(item) } }, configuration: .standardOutput())
    }

    /// `items` in `format`; `document` is the JSON document to print for `.json`.
    func render<Document: Encodable>(_ items: [Item], as format: OutputFormat, document: () -> Document) throws -> String {
        switch format {
        case .table: renderTable(items)
        case .csv: renderCSV(items)
        case .json: try JSONOutput.encode(document())
        }
    }
}
