/// Why a header cannot be mapped to task fields. Raised before any data row is read.
public enum HeaderMappingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No column maps to the title; `header` lists the columns there are.
    case missingTitle(header: [String])
    /// Several columns map to one field by their names.
    case duplicateField(ImportField, columns: [String])
    /// A `--map` names a header the file does not have.
    case overrideHeaderNotFound(ImportField, header: String, available: [String])
    /// Two `--map` options for the same field.
    case conflictingOverrides(ImportField, headers: [String])
    /// Two `--map` options that take the same column for different fields.
    case columnMappedTwice(header: String, fields: [ImportField])
    /// A `--map` value that does not parse.
    case invalidOverride(argument: String, reason: String)

    /// One line: what is wrong and what to do about it.
    public var description: String {
        switch self {
        case .missingTitle(let header):
            let names = ImportField.title.synonyms.joined(separator: ", ")
            return "no title column (looked for \(names)); the columns are \(Self.list(header)); "
                + "name the title column with \(OptionSpelling.option("map", "title=HEADER"))" + HeaderNameQuoting.hint(for: header)
        case .duplicateField(let field, let columns):
            return "columns \(Self.list(columns)) all map to \(field.displayName); "
                + "choose one with \(OptionSpelling.option("map", "\(field.rawValue)=HEADER"))" + HeaderNameQuoting.hint(for: columns)
        case .overrideHeaderNotFound(let field, let header, let available):
            return "\(OptionSpelling.option("map", "\(field.rawValue)=\(header)")): the file has no column \(HeaderNameQuoting.quoted(header)); "
                + "the columns are \(Self.list(available))" + HeaderNameQuoting.hint(for: available)
        case .conflictingOverrides(let field, let headers):
            return "\(OptionSpelling.mapOption) gives \(field.rawValue) more than one column (\(Self.list(headers))); keep one"
        case .columnMappedTwice(let header, let fields):
            return
                "\(OptionSpelling.mapOption) takes column \(HeaderNameQuoting.quoted(header)) for \(fields.map(\.rawValue).joined(separator: " and ")); "
                + "a column fills one field"
        case .invalidOverride(let argument, let reason):
            return "\(OptionSpelling.option("map", argument)): \(reason)"
        }
    }

    /// Header names quoted for a message, invisible characters escaped; an empty name shows
    /// as `""`.
    private static func list(_ names: [String]) -> String {
        HeaderNameQuoting.list(names)
    }
}
