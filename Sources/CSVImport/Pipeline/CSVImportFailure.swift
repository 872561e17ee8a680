/// Why an import stopped before the store merged anything: the database is left as it was.
public enum CSVImportFailure: Error, Sendable, CustomStringConvertible {
    /// The input has no header row at all.
    case emptyInput
    /// The header row (on `line`) cannot be mapped to task fields (no title column, an
    /// ambiguous column).
    case unusableHeader(HeaderMappingError, line: Int)
    /// The header row itself is malformed CSV.
    case malformedHeader(CSVError)
    /// A CSV error that ends the read: an unterminated quote, invalid UTF-8, an oversized
    /// field, or the input failing to read; with the rows read and refused before it, and the
    /// header of its column when it has one.
    case unreadableInput(CSVError, rowsRead: Int = 0, rejected: Int = 0, header: String? = nil)
    /// More rows were refused than `--max-errors` allows; `last` is the one over the limit.
    case tooManyRejectedRows(limit: Int, rejected: Int, rowsRead: Int, last: RowRejection)

    /// One line: what stopped the import and what to do.
    public var description: String {
        switch self {
        case .emptyInput:
            return "the input is empty: expected a header row naming the columns (at least a title column)"
        case .unusableHeader(let error, let line):
            return "header (line \(line)): \(error.description)"
        case .malformedHeader(let error):
            return "header: \(error.description)"
        case .unreadableInput(let error, _, _, let header):
            return "\(error.description(header: header)); nothing was imported"
        case .tooManyRejectedRows(let limit, let rejected, let rowsRead, let last):
            let setting = OptionSpelling.option("max-errors", String(limit))
            let allowance = limit == 0 ? "no bad rows are allowed (\(setting))" : "at most \(limit) bad rows are allowed (\(setting))"
            return "\(last.description); stopped after \(rowsRead) \(rowsRead == 1 ? "row" : "rows") with \(rejected) bad: \(allowance); "
                + "nothing was imported. Fix the rows, or \(OptionSpelling.listingEveryBadRow)"
        }
    }

    /// Where in the file the failure is, as far as it has a place: the line, the column (field
    /// number) and its header, and the character in the line.
    public var place: (line: Int?, column: Int?, header: String?, character: Int?) {
        switch self {
        case .emptyInput: (nil, nil, nil, nil)
        case .unusableHeader(_, let line): (line, nil, nil, nil)
        case .malformedHeader(let error): (error.line, error.field, nil, error.character)
        case .unreadableInput(let error, _, _, let header): (error.line, error.field, header, error.character)
        case .tooManyRejectedRows(_, _, _, let last): (last.line, last.column, last.header, last.character)
        }
    }

    /// Rows read and refused before the failure, when they were counted.
    public var rowsSoFar: (read: Int, rejected: Int) {
        switch self {
        case .tooManyRejectedRows(_, let rejected, let rowsRead, _), .unreadableInput(_, let rowsRead, let rejected, _): (rowsRead, rejected)
        default: (0, 0)
        }
    }

    /// Whether the failure is the input's fault (exit 6) rather than the system's (a read
    /// failing: exit 1).
    public var isInputRejected: Bool {
        if case .unreadableInput(let error, _, _, _) = self, case .readFailed = error.kind { return false }
        return true
    }
}
