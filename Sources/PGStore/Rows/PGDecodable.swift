import Foundation

/// One field of a result row as the server sent it (text format), with what is needed to
/// report a decoding error by column name.
public struct PGField: @unchecked Sendable {
    /// The raw text bytes; `nil` for SQL NULL. Valid only while the row's result is alive.
    public let bytes: UnsafeBufferPointer<UInt8>?
    /// The column's type OID.
    public let typeOID: UInt32
    /// The column's name, for error messages.
    public let column: String

    /// The field as a Swift string (nil for NULL).
    public var text: String? { bytes.map { String(decoding: $0, as: UTF8.self) } }

    func error(_ message: String) -> PGError { PGError.decoding(column: column, message) }

    /// The non-NULL bytes, or a decoding error naming the column and the requested type.
    public func requireBytes<T>(_ type: T.Type) throws -> UnsafeBufferPointer<UInt8> {
        guard let bytes else { throw error("is NULL, cannot decode it as non-optional \(T.self)") }
        return bytes
    }
}

/// A Swift type that can be read from a result field.
public protocol PGDecodable: Sendable {
    /// Decodes a field; throws a `PGError` of kind `.decoding` naming the column on NULL or mismatch.
    static func pgDecode(_ field: PGField) throws -> Self
}

extension Optional: PGDecodable where Wrapped: PGDecodable {
    public static func pgDecode(_ field: PGField) throws -> Wrapped? {
        field.bytes == nil ? nil : try Wrapped.pgDecode(field)
    }
}

extension String: PGDecodable {
    public static func pgDecode(_ field: PGField) throws -> String {
        String(decoding: try field.requireBytes(String.self), as: UTF8.self)
    }
}

/// Integer text to a fixed-width integer, with overflow checks.
@inline(__always)
func decodeInteger<T: FixedWidthInteger>(_ field: PGField, as type: T.Type) throws -> T {
    let bytes = try field.requireBytes(T.self)
    var index = 0
    var negative = false
    if bytes.count > 0, bytes[0] == UInt8(ascii: "-") { negative = true; index = 1 }
    guard index < bytes.count else {
        throw field.error("\"\(String(decoding: bytes, as: UTF8.self))\" is not an integer (\(T.self))")
    }
    var value: T = 0
    while index < bytes.count {
        let digit = bytes[index] &- 48
        guard digit < 10 else {
            throw field.error("\"\(String(decoding: bytes, as: UTF8.self))\" is not an integer (\(T.self))")
        }
        let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
        let (next, overflow2) =
            negative
            ? times.subtractingReportingOverflow(T(digit)) : times.addingReportingOverflow(T(digit))
        guard !overflow1, !overflow2 else {
            throw field.error("\(String(decoding: bytes, as: UTF8.self)) does not fit in \(T.self)")
        }
        value = next
        index += 1
    }
    return value
}

extension Int: PGDecodable {
    public static func pgDecode(_ field: PGField) throws -> Int { try decodeInteger(field, as: Int.self) }
}

extension Int64: PGDecodable {
    public static func pgDecode(_ field: PGField) throws -> Int64 { try decodeInteger(field, as: Int64.self) }
}

extension Int32: PGDecodable {
    public static func pgDecode(_ field: PGField) throws -> Int32 { try decodeInteger(field, as: Int32.self) }
}

extension Int16: PGDecodable {
    public static func pgDecode(_ field: PGField) throws -> Int16 { try decodeInteger(field, as: Int16.self) }
}

extension Double: PGDecodable {
    public static func pgDecode(_ field: PGField) throws -> Double {
        let bytes = try field.requireBytes(Double.self)
        let text = String(decoding: bytes, as: UTF8.self)
        switch text {
        case "NaN": return .nan
        case "Infinity": return .infinity
        case "-Infinity": return -.infinity
        default:
            guard let value = Double(text) else { throw field.error("\"\(text)\" is not a number (Double)") }
            return value
        }
    }
}

extension Float: PGDecodable {
    public static func pgDecode(_ field: PGField) throws -> Float { Float(try Double.pgDecode(field)) }
}

extension Bool: PGDecodable {
    public static func pgDecode(_ field: PGField) throws -> Bool {
        let bytes = try field.requireBytes(Bool.self)
        if bytes.count == 1 {
            if bytes[0] == UInt8(ascii: "t") { return true }
            if bytes[0] == UInt8(ascii: "f") { return false }
        }
        switch String(decoding: bytes, as: UTF8.self) {
        case "true": return true
        case "false": return false
        case let other: throw field.error("\"\(other)\" is not a boolean")
        }
    }
}

extension Date: PGDecodable {
    /// From `timestamptz` (any session time zone) or `timestamp` (read as UTC).
    public static func pgDecode(_ field: PGField) throws -> Date {
        let bytes = try field.requireBytes(Date.self)
        guard let date = DateTimeText.parseTimestamp(bytes) else {
            throw field.error("\"\(String(decoding: bytes, as: UTF8.self))\" is not a timestamp")
        }
        return date
    }
}

extension PGDate: PGDecodable {
    public static func pgDecode(_ field: PGField) throws -> PGDate {
        let text = String(decoding: try field.requireBytes(PGDate.self), as: UTF8.self)
        guard let date = PGDate(text) else { throw field.error("\"\(text)\" is not a date") }
        return date
    }
}

extension UUID: PGDecodable {
    public static func pgDecode(_ field: PGField) throws -> UUID {
        let text = String(decoding: try field.requireBytes(UUID.self), as: UTF8.self)
        guard let uuid = UUID(uuidString: text) else { throw field.error("\"\(text)\" is not a UUID") }
        return uuid
    }
}

extension Data: PGDecodable {
    /// From `bytea` in hex output form (`\x0102...`, PostgreSQL's default).
    public static func pgDecode(_ field: PGField) throws -> Data {
        let bytes = try field.requireBytes(Data.self)
        guard bytes.count >= 2, bytes[0] == UInt8(ascii: "\\"), bytes[1] == UInt8(ascii: "x"), bytes.count % 2 == 0 else {
            throw field.error("is not bytea in hex form")
        }
        func nibble(_ byte: UInt8) throws -> UInt8 {
            switch byte {
            case 48...57: return byte - 48
            case 97...102: return byte - 87
            case 65...70: return byte - 55
            default: throw field.error("invalid hex digit in bytea")
            }
        }
        var data = Data(capacity: (bytes.count - 2) / 2)
        var index = 2
        while index < bytes.count {
            data.append(try nibble(bytes[index]) << 4 | nibble(bytes[index + 1]))
            index += 2
        }
        return data
    }
}

extension Array: PGDecodable where Element: PGArrayElement {
    /// From one-dimensional array text (`{a,"b c",NULL}`); a NULL element is an error.
    public static func pgDecode(_ field: PGField) throws -> [Element] {
        let bytes = try field.requireBytes([Element].self)
        var elements: [Element] = []
        var index = 0
        // Skip optional dimension decoration such as `[0:2]=`.
        if bytes.first == UInt8(ascii: "[") {
            while index < bytes.count, bytes[index] != UInt8(ascii: "=") { index += 1 }
            index += 1
        }
        guard index < bytes.count, bytes[index] == UInt8(ascii: "{"), bytes.last == UInt8(ascii: "}") else {
            throw field.error("is not an array")
        }
        index += 1
        let end = bytes.count - 1
        if index == end { return [] }
        var item: [UInt8] = []
        while index <= end {
            item.removeAll(keepingCapacity: true)
            var quoted = false
            if bytes[index] == UInt8(ascii: "\"") {
                quoted = true
                index += 1
                while index < end, bytes[index] != UInt8(ascii: "\"") {
                    if bytes[index] == UInt8(ascii: "\\") { index += 1 }
                    item.append(bytes[index])
                    index += 1
                }
                index += 1
            } else {
                while index < end, bytes[index] != UInt8(ascii: ",") {
                    if bytes[index] == UInt8(ascii: "{") { throw field.error("multi-dimensional arrays are not supported") }
                    item.append(bytes[index])
                    index += 1
                }
            }
            if !quoted, item.elementsEqual("NULL".utf8) {
                throw field.error("has a NULL element, which [\(Element.self)] cannot hold")
            }
            let element = try item.withUnsafeBufferPointer { buffer in
                try Element.pgDecode(PGField(bytes: buffer, typeOID: 0, column: field.column))
            }
            elements.append(element)
            index += 1
        }
        return elements
    }
}

/// A JSON document (`json` or `jsonb`), kept as its text.
public struct PGJSON: Sendable, Hashable, PGEncodable, PGDecodable {
    /// The document's UTF-8 text.
    public var text: String

    /// Wraps existing JSON text.
    public init(text: String) { self.text = text }

    /// Encodes a value with `JSONEncoder` (sorted keys, ISO dates).
    public init<T: Encodable>(encoding value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        text = String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// Decodes the document into `T` with `JSONDecoder` (ISO dates).
    public func decode<T: Decodable>(as type: T.Type = T.self) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(T.self, from: Data(text.utf8))
    }

    public func pgEncode(into buffer: inout [UInt8]) { buffer.append(contentsOf: text.utf8) }

    public static func pgDecode(_ field: PGField) throws -> PGJSON {
        PGJSON(text: try String.pgDecode(field))
    }
}
