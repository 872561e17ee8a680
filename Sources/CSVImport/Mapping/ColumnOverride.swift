/// A `--map FIELD=HEADER` option: the column named HEADER fills FIELD, whatever the
/// synonyms say.
public struct ColumnOverride: Sendable, Hashable {
    /// The task field to fill.
    public var field: ImportField
    /// The header of the column that fills it, as written in the file.
    public var header: String

    /// An override for `field` from the column called `header`.
    public init(field: ImportField, header: String) {
        self.field = field
        self.header = header
    }

    /// Parses `FIELD=HEADER`; the header may itself contain `=` and spaces.
    public init(argument: String) throws(HeaderMappingError) {
        guard let equals = argument.firstIndex(of: "=") else {
            throw .invalidOverride(argument: argument, reason: "expected FIELD=HEADER")
        }
        let name = String(argument[..<equals])
        let header = String(argument[argument.index(after: equals)...])
        guard let field = ImportField(argument: name) else {
            let known = ImportField.allCases.map(\.rawValue).joined(separator: ", ")
            throw .invalidOverride(argument: argument, reason: "unknown field \"\(name)\"; fields are \(known)")
        }
        guard !header.isEmpty else {
            throw .invalidOverride(argument: argument, reason: "the header after = is empty")
        }
        self.init(field: field, header: header)
    }
}
