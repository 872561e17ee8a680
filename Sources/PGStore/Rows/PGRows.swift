/// The rows a statement returned, read in place from libpq's result (no copy until decoded).
public struct PGRows: Sendable, RandomAccessCollection {
    let result: PGResult

    init(result: PGResult) { self.result = result }

    public var startIndex: Int { 0 }
    public var endIndex: Int { result.rowCount }
    public subscript(position: Int) -> PGRow { PGRow(result: result, index: position) }

    /// Column names in order.
    public var columns: [String] { (0..<result.columnCount).map(result.columnName) }

    /// Rows changed by an INSERT/UPDATE/DELETE/COPY (from the command tag).
    public var affectedRows: Int { result.affectedRows }

    /// The command tag, e.g. `INSERT 0 1`.
    public var commandTag: String { result.commandTag }

    /// Decodes each row into `T` by column name.
    public func decode<T: Decodable>(_ type: T.Type, keys: PGRowDecoder.KeyStrategy = .useDefaultKeys) throws -> [T] {
        try map { try $0.decode(T.self, keys: keys) }
    }
}

/// One row; decode its fields by column name or position.
public struct PGRow: Sendable {
    let result: PGResult
    let index: Int

    /// The number of columns.
    public var count: Int { result.columnCount }

    /// The field at `column` (0-based).
    public func field(_ column: Int) throws -> PGField {
        guard column >= 0, column < result.columnCount else {
            throw PGError.decoding(column: "#\(column)", "no such column: the row has \(result.columnCount)")
        }
        return result.field(row: index, column: column)
    }

    /// The field of the column called `name`.
    public func field(_ name: String) throws -> PGField {
        guard let column = result.columnIndex(name) else {
            throw PGError.decoding(column: name, "no such column in the result (columns: \(result.columnNamesList))")
        }
        return result.field(row: index, column: column, name: name)
    }

    /// Decodes the column called `name` into `T`.
    public func decode<T: PGDecodable>(_ type: T.Type = T.self, _ name: String) throws -> T {
        try T.pgDecode(field(name))
    }

    /// Decodes the column at `column` into `T`.
    public func decode<T: PGDecodable>(_ type: T.Type = T.self, at column: Int) throws -> T {
        try T.pgDecode(field(column))
    }

    /// Decodes the whole row into a `Decodable` struct, matching coding keys to column names.
    public func decode<T: Decodable>(_ type: T.Type, keys: PGRowDecoder.KeyStrategy = .useDefaultKeys) throws -> T {
        try T(from: PGRowDecoder.Decoder(row: self, keys: keys))
    }
}

extension PGResult {
    var columnNamesList: String { (0..<columnCount).map(columnName).joined(separator: ", ") }
}
