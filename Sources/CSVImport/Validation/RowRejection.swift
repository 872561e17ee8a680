/// Why one row of a file was not imported: the line it starts on, the column at fault, and the
/// reason, with the row's fields as read so it can go to a reject file.
public struct RowRejection: Error, Sendable, Equatable, CustomStringConvertible {
    /// 1-based physical line on which the row starts (where the problem is, for CSV errors).
    public var line: Int
    /// 1-based column (field number) at fault, when one is.
    public var column: Int?
    /// That column's header, when the file has one for it.
    public var header: String?
    /// What is wrong and, where it helps, what to do.
    public var reason: String
    /// The row's fields as read; empty when the row could not be split into fields.
    public var fields: [String]
    /// 1-based character of the line where the reader found the problem, for a row it could
    /// not read as a record (also in `reason`); nil for a value refused.
    public var character: Int?

    /// A rejection at `line`, column `column` (1-based).
    public init(line: Int, column: Int?, header: String?, reason: String, fields: [String]) {
        self.line = line
        self.column = column
        self.header = header
        self.reason = reason
        self.fields = fields
    }

    /// A row the CSV reader could not read as a record (a quote problem, a ragged row); the
    /// character position goes into the reason.
    init(_ error: CSVError, header: [String]) {
        let column = error.field
        self.init(
            line: error.line, column: column,
            header: error.header(in: header),
            reason: "\(error.problem) (character \(error.character) of line \(error.line))",
            fields: error.record?.fields ?? [])
        character = error.character
    }

    /// `line 7, column 4 (Due Date): reason`.
    public var description: String {
        var place = "line \(line)"
        if let column {
            place += ", column \(column)"
            if let header, !header.isEmpty { place += " (\(header))" }
        }
        return "\(place): \(reason)"
    }
}
