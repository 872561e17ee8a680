/// Why an import stopped before the store merged anything: the database is left as it was.
public enum CSVImportFailure: Error, Sendable, CustomStringConvertible {
    /// The input has no header row at all.
    case emptyInput
    /// The header row cannot be mapped to task fields (no title column, an ambiguous column).
    case unusableHeader(HeaderMappingError)
    /// The header row itself is malformed CSV.
    case malformedHeader(CSVError)
    /// A CSV error that ends the read: an unterminated quote, invalid UTF-8, an oversized
    /// field, or the input failing to read.
    case unreadableInput(CSVError)
    /// More rows were refused than `--max-errors` allows; `last` is the one over the limit.
    case tooManyRejectedRows(limit: Int, rejected: Int, rowsRead: Int, last: RowRejection)

    /// One line: what stopped the import and what to do.
    public var description: String {
        switch self {
        case .emptyInput:
            return "the input is empty: expected a header row naming the columns (at least a title column)"
        case .unusableHeader(let error):
            return "header: \(error.description)"
        case .malformedHeader(let error):
            return "header: \(error.description)"
        case .unreadableInput(let error):
            return "\(error.description); nothing was imported"
        case .tooManyRejectedRows(let limit, let rejected, let rowsRead, let last):
            let allowance = limit == 0 ? "no bad rows are allowed (--max-errors 0)" : "at most \(limit) bad rows are allowed (--max-errors \(limit))"
            return "\(last.description); stopped after \(rowsRead) rows with \(rejected) bad: \(allowance); "
                + "nothing was imported. Fix the rows, or list them all with --dry-run --max-errors N --reject-file PATH"
        }
    }

    /// Whether the failure is the input's fault (exit 6) rather than the system's (a read
    /// failing: exit 1).
    public var isInputRejected: Bool {
        if case .unreadableInput(let error) = self, case .readFailed = error.kind { return false }
        return true
    }
}
