/// Which column of a CSV file fills which task field, decided from the header row alone, so a
/// bad header fails before any data row is read.
///
/// Columns match fields by name ignoring case, spaces, hyphens and underscores, with the
/// synonyms `ImportField` documents; `--map FIELD=HEADER` overrides win over synonyms. A
/// column that fills no field is listed in `unmappedColumns` for a warning.
///
/// ```swift
/// let reader = try CSVReader(path: "tasks.csv")
/// guard let header = try reader.next() else { return }
/// let mapping = try HeaderMapping(header: header.fields,
///                                 overrides: [ColumnOverride(argument: "externalId=Ticket")])
/// if let warning = mapping.unmappedColumnsWarning { printToStandardError(warning) }
/// while let record = try reader.next() {
///     let title = mapping.value(of: .title, in: record)
/// }
/// ```
public struct HeaderMapping: Sendable, Equatable {
    /// The header row as read.
    public let header: [String]
    /// The 0-based column index that fills each mapped field.
    public let columns: [ImportField: Int]
    /// 0-based indexes of the columns that fill no field, in file order.
    public let unmappedColumns: [Int]

    /// Maps `header` to fields, `overrides` first.
    public init(header: [String], overrides: [ColumnOverride] = []) throws(HeaderMappingError) {
        self.header = header
        var columns = try Self.resolve(overrides, in: header)
        let taken = Set(columns.values)

        var candidates: [ImportField: [Int]] = [:]
        for (index, name) in header.enumerated() where !taken.contains(index) {
            guard let field = ImportField.matching(header: name), columns[field] == nil else { continue }
            candidates[field, default: []].append(index)
        }
        for field in ImportField.allCases {
            guard let indexes = candidates[field] else { continue }
            if indexes.count > 1, field == .assignee, let email = Self.emailColumn(among: indexes, of: header) {
                // Asana and others export the assignee twice, by name ("Assignee") and by
                // address ("Assignee Email"): the assignee is named by address, so that one
                // fills it and the name is an unmapped column (named in the warning).
                columns[field] = email
                continue
            }
            guard indexes.count == 1 else {
                throw .duplicateField(field, columns: indexes.map { header[$0] })
            }
            columns[field] = indexes[0]
        }
        guard columns[.title] != nil else { throw .missingTitle(header: header) }

        let used = Set(columns.values)
        self.columns = columns
        self.unmappedColumns = header.indices.filter { !used.contains($0) }
    }

    /// The one column among `indexes` whose name says it holds an email address, if exactly one does.
    private static func emailColumn(among indexes: [Int], of header: [String]) -> Int? {
        let emails = indexes.filter { ImportField.matchKey(header[$0]).contains("email") }
        return emails.count == 1 ? emails[0] : nil
    }

    /// The column index that fills `field`, or `nil` when the file has none.
    public func column(for field: ImportField) -> Int? {
        columns[field]
    }

    /// The text `record` has for `field`, or `nil` when no column fills it or the record is
    /// too short to have it.
    public func value(of field: ImportField, in record: CSVRecord) -> String? {
        guard let index = columns[field], index < record.count else { return nil }
        return record[index]
    }

    /// The names of the unmapped columns; an unnamed column shows as `column N`.
    public var unmappedColumnNames: [String] {
        unmappedColumns.map { header[$0].isEmpty ? "column \($0 + 1)" : header[$0] }
    }

    /// How many unmapped column names the warning lists before it only counts the rest.
    static let listedUnmappedColumns = 5

    /// The warning to print about unmapped columns, or `nil` when every column is used; past
    /// the first few names it gives a count, so 10,000 stray columns make one short line.
    public var unmappedColumnsWarning: String? {
        guard !unmappedColumns.isEmpty else { return nil }
        let shown = Array(unmappedColumnNames.prefix(Self.listedUnmappedColumns))
        let listed = HeaderNameQuoting.list(shown)
        let more = unmappedColumns.count - Self.listedUnmappedColumns
        let names = more > 0 ? "\(listed) and \(more) more (\(unmappedColumns.count) in all)" : listed
        return "ignoring columns that match no task field: \(names); "
            + "import one with --map FIELD=HEADER" + HeaderNameQuoting.hint(for: shown)
    }

    /// The columns the overrides name: an exact header match first, else the one header that
    /// matches ignoring case, spaces, hyphens and underscores.
    private static func resolve(
        _ overrides: [ColumnOverride], in header: [String]
    ) throws(HeaderMappingError) -> [ImportField: Int] {
        var columns: [ImportField: Int] = [:]
        for override in overrides {
            if let existing = columns[override.field], header[existing] != override.header {
                throw .conflictingOverrides(override.field, headers: [header[existing], override.header])
            }
            guard let index = columnIndex(named: override.header, in: header) else {
                throw .overrideHeaderNotFound(override.field, header: override.header, available: header)
            }
            if let other = columns.first(where: { $0.value == index && $0.key != override.field })?.key {
                throw .columnMappedTwice(header: header[index], fields: [other, override.field])
            }
            columns[override.field] = index
        }
        return columns
    }

    private static func columnIndex(named name: String, in header: [String]) -> Int? {
        if let exact = header.firstIndex(of: name) { return exact }
        let key = ImportField.matchKey(name)
        let loose = header.indices.filter { ImportField.matchKey(header[$0]) == key }
        return loose.count == 1 ? loose[0] : nil
    }
}
