/// A statement and its bind parameters. Built by string interpolation, where every
/// interpolated value becomes a `$n` parameter and never part of the SQL text:
///
///     let query: PGQuery = "SELECT * FROM tasks WHERE team_id = \(teamID) AND title = \(title)"
///
/// SQL text that is not a literal must be stated explicitly with `unsafeSQL:` (for trusted,
/// program-made text only) or `identifier:` (a quoted identifier).
public struct PGQuery: Sendable, ExpressibleByStringInterpolation, CustomStringConvertible {
    /// The statement text with `$1`, `$2`, ... placeholders.
    public private(set) var sql: String
    /// The parameters' wire bytes, back to back (each followed by a NUL for libpq).
    @usableFromInline var parameterBytes: [UInt8]
    /// Per parameter: where its bytes start in `parameterBytes` (-1 for NULL), length, format, type.
    private(set) var parameters: [Parameter]

    struct Parameter: Sendable {
        var offset: Int
        var length: Int32
        var format: Int32
        var typeOID: UInt32
    }

    /// A statement with no parameters, from trusted, program-made text.
    public init(unsafeSQL sql: String) {
        self.sql = sql
        self.parameterBytes = []
        self.parameters = []
    }

    /// A statement from trusted text whose `count` parameters will be bound with `bindNext`:
    /// room for them (of a usual size) is made at once.
    public init(unsafeSQL sql: String, parameterCapacity count: Int) {
        self.init(unsafeSQL: sql)
        parameters.reserveCapacity(count)
        parameterBytes.reserveCapacity(count * 16)
    }

    public init(stringLiteral value: String) {
        self.init(unsafeSQL: value)
    }

    public init(stringInterpolation: StringInterpolation) {
        self = stringInterpolation.query
    }

    /// The first text parameter (1-based) holding a NUL byte, which PostgreSQL text cannot
    /// store and libpq would silently cut at; such a statement is refused before it is sent.
    private(set) var firstParameterWithNUL: Int?

    /// Throws when a parameter cannot travel as given (a NUL byte in text).
    func checkSendable() throws {
        if let index = firstParameterWithNUL {
            throw PGError.invalidParameter(
                "parameter $\(index) contains a NUL byte (U+0000), which PostgreSQL text cannot store; remove it, or send the value as bytes (Data)")
        }
    }

    /// The number of bind parameters.
    public var parameterCount: Int { parameters.count }

    /// The size of the parameters' wire bytes.
    var parameterByteCount: Int { parameterBytes.count }

    /// The statement text only; parameter values are never shown.
    public var description: String { sql }

    /// Appends a bind parameter and returns its placeholder (`$n`).
    @inlinable @discardableResult
    public mutating func bind<T: PGEncodable>(_ value: T?) -> String {
        "$\(addParameter(value))"
    }

    /// Binds `value` to the next placeholder of text that already holds it: for hot statements,
    /// whose text is made once (with the interpolating form, so that one piece of code states
    /// it) and whose values are bound per call, in placeholder order. Spells no placeholder.
    @inlinable
    public mutating func bindNext<T: PGEncodable>(_ value: T?) {
        _ = addParameter(value)
    }

    /// Appends a bind parameter and returns its number. Inlinable, so that callers in other
    /// modules get it specialized for their value types (no generic dispatch per value).
    @inlinable
    mutating func addParameter<T: PGEncodable>(_ value: T?) -> Int {
        guard let value else { return recordParameter(from: -1, format: 0, typeOID: T.pgTypeOID) }
        let offset = parameterBytes.count
        value.pgEncode(into: &parameterBytes)
        return recordParameter(from: offset, format: T.pgFormat.rawValue, typeOID: T.pgTypeOID)
    }

    /// Records the parameter whose bytes `addParameter` just appended from `offset` (-1: NULL).
    @usableFromInline
    mutating func recordParameter(from offset: Int, format: Int32, typeOID: UInt32) -> Int {
        guard offset >= 0 else {
            parameters.append(Parameter(offset: -1, length: 0, format: 0, typeOID: typeOID))
            return parameters.count
        }
        let length = parameterBytes.count - offset
        if format == PGFormat.text.rawValue, firstParameterWithNUL == nil, parameterBytes[offset...].contains(0) {
            firstParameterWithNUL = parameters.count + 1
        }
        parameterBytes.append(0)
        parameters.append(Parameter(offset: offset, length: Int32(length), format: format, typeOID: typeOID))
        return parameters.count
    }

    /// Appends placeholder `$number` to the text.
    @usableFromInline
    mutating func appendPlaceholder(_ number: Int) {
        sql.append("$")
        sql.append(String(number))
    }

    /// Appends trusted SQL text.
    public mutating func append(unsafeSQL text: String) { sql += text }

    /// Appends another query, renumbering its parameters after this one's.
    public mutating func append(_ other: PGQuery) {
        let shift = parameters.count
        sql += shift == 0 ? other.sql : PGQuery.renumber(other.sql, by: shift)
        let base = parameterBytes.count
        parameterBytes.append(contentsOf: other.parameterBytes)
        if firstParameterWithNUL == nil, let index = other.firstParameterWithNUL { firstParameterWithNUL = index + shift }
        parameters.append(
            contentsOf: other.parameters.map {
                var parameter = $0
                if parameter.offset >= 0 { parameter.offset += base }
                return parameter
            })
    }

    /// Shifts `$n` placeholders outside quotes by `shift`. Works on UTF-8 bytes: every byte
    /// it looks for is ASCII, which never occurs inside a multi-byte sequence.
    private static func renumber(_ sql: String, by shift: Int) -> String {
        var result: [UInt8] = []
        result.reserveCapacity(sql.utf8.count + 16)
        var number = 0
        var inDollar = false
        var hasDigits = false
        var quote: UInt8 = 0
        func endPlaceholder() {
            result.append(UInt8(ascii: "$"))
            if hasDigits { result.append(contentsOf: String(number + shift).utf8) }
            number = 0
            hasDigits = false
            inDollar = false
        }
        for byte in sql.utf8 {
            if inDollar {
                if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                    number = number * 10 + Int(byte - UInt8(ascii: "0"))
                    hasDigits = true
                    continue
                }
                endPlaceholder()
            }
            if quote != 0 {
                if byte == quote { quote = 0 }
                result.append(byte)
            } else if byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\"") {
                quote = byte
                result.append(byte)
            } else if byte == UInt8(ascii: "$") {
                inDollar = true
            } else {
                result.append(byte)
            }
        }
        if inDollar { endPlaceholder() }
        return String(decoding: result, as: UTF8.self)
    }

    /// Calls `body` with the C arrays libpq's `PQsendQueryParams` takes.
    func withParameterPointers<R>(
        _ body: (
            _ count: Int32, _ types: UnsafePointer<UInt32>?, _ values: UnsafePointer<UnsafePointer<CChar>?>?,
            _ lengths: UnsafePointer<Int32>?, _ formats: UnsafePointer<Int32>?
        ) throws -> R
    ) rethrows -> R {
        if parameters.isEmpty { return try body(0, nil, nil, nil, nil) }
        return try parameterBytes.withUnsafeBufferPointer { storage in
            try storage.withMemoryRebound(to: CChar.self) { chars in
                let count = parameters.count
                return try withUnsafeTemporaryAllocation(of: UnsafePointer<CChar>?.self, capacity: count) { values in
                    try withUnsafeTemporaryAllocation(of: UInt32.self, capacity: count) { types in
                        try withUnsafeTemporaryAllocation(of: Int32.self, capacity: count) { lengths in
                            try withUnsafeTemporaryAllocation(of: Int32.self, capacity: count) { formats in
                                for (index, parameter) in parameters.enumerated() {
                                    values[index] = parameter.offset < 0 ? nil : UnsafePointer(chars.baseAddress! + parameter.offset)
                                    types[index] = parameter.typeOID
                                    lengths[index] = parameter.length
                                    formats[index] = parameter.format
                                }
                                return try body(
                                    Int32(count), UnsafePointer(types.baseAddress), UnsafePointer(values.baseAddress),
                                    UnsafePointer(lengths.baseAddress), UnsafePointer(formats.baseAddress))
                            }
                        }
                    }
                }
            }
        }
    }

    /// Builds a `PGQuery` from literal text and interpolated values.
    public struct StringInterpolation: StringInterpolationProtocol {
        @usableFromInline var query: PGQuery

        public init(literalCapacity: Int, interpolationCount: Int) {
            query = PGQuery(unsafeSQL: "")
            query.sql.reserveCapacity(literalCapacity + interpolationCount * 3)
        }

        public mutating func appendLiteral(_ literal: String) { query.sql += literal }

        /// A value, sent as a bind parameter.
        @inlinable
        public mutating func appendInterpolation<T: PGEncodable>(_ value: T) {
            query.appendPlaceholder(query.addParameter(value))
        }

        /// An optional value, sent as a bind parameter (NULL when nil).
        @inlinable
        public mutating func appendInterpolation<T: PGEncodable>(_ value: T?) {
            query.appendPlaceholder(query.addParameter(value))
        }

        /// Trusted, program-made SQL text. Never pass user data here.
        public mutating func appendInterpolation(unsafeSQL text: String) { query.sql += text }

        /// An identifier (table, column, channel), double-quoted and escaped.
        public mutating func appendInterpolation(identifier name: String) {
            query.sql += PGQuery.quoteIdentifier(name)
        }

        /// Another query, its parameters renumbered into this one.
        public mutating func appendInterpolation(_ fragment: PGQuery) { query.append(fragment) }
    }

    /// `name` as a double-quoted SQL identifier (`"a""b"` for `a"b`); a dotted name is not split.
    public static func quoteIdentifier(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
