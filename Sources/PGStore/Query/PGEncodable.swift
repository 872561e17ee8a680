import Foundation

/// How a bind parameter travels to the server.
public enum PGFormat: Int32, Sendable {
    case text = 0
    case binary = 1
}

/// A Swift value that can be sent as a bind parameter.
public protocol PGEncodable: Sendable {
    /// The parameter's type OID, or 0 to let the server infer it from the statement.
    static var pgTypeOID: UInt32 { get }
    /// Text unless the type's binary form is the natural one (bytea) or much cheaper (timestamptz).
    static var pgFormat: PGFormat { get }
    /// Appends the value's wire form (no terminator) to `buffer`.
    func pgEncode(into buffer: inout [UInt8])
}

extension PGEncodable {
    public static var pgTypeOID: UInt32 { 0 }
    public static var pgFormat: PGFormat { .text }
}

extension String: PGEncodable {
    public func pgEncode(into buffer: inout [UInt8]) { buffer.append(contentsOf: utf8) }
}

extension Substring: PGEncodable {
    public func pgEncode(into buffer: inout [UInt8]) { buffer.append(contentsOf: utf8) }
}

extension Int: PGEncodable {
    public static var pgTypeOID: UInt32 { 20 }
    public func pgEncode(into buffer: inout [UInt8]) { appendDecimal(Int64(self), to: &buffer) }
}

extension Int64: PGEncodable {
    public static var pgTypeOID: UInt32 { 20 }
    public func pgEncode(into buffer: inout [UInt8]) { appendDecimal(self, to: &buffer) }
}

extension Int32: PGEncodable {
    public static var pgTypeOID: UInt32 { 23 }
    public func pgEncode(into buffer: inout [UInt8]) { appendDecimal(Int64(self), to: &buffer) }
}

extension Int16: PGEncodable {
    public static var pgTypeOID: UInt32 { 21 }
    public func pgEncode(into buffer: inout [UInt8]) { appendDecimal(Int64(self), to: &buffer) }
}

/// Decimal digits without going through `String`.
@inline(__always)
func appendDecimal(_ value: Int64, to buffer: inout [UInt8]) {
    if value == 0 { buffer.append(48); return }
    var magnitude = value.magnitude
    var digits:
        (
            UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
            UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8
        ) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    var count = 0
    withUnsafeMutableBytes(of: &digits) { raw in
        while magnitude > 0 {
            raw[count] = UInt8(magnitude % 10) + 48
            magnitude /= 10
            count += 1
        }
        if value < 0 { buffer.append(UInt8(ascii: "-")) }
        for index in stride(from: count - 1, through: 0, by: -1) { buffer.append(raw[index]) }
    }
}

extension Double: PGEncodable {
    public static var pgTypeOID: UInt32 { 701 }
    public func pgEncode(into buffer: inout [UInt8]) {
        if isNaN {
            buffer.append(contentsOf: "NaN".utf8)
        } else if self == .infinity {
            buffer.append(contentsOf: "Infinity".utf8)
        } else if self == -.infinity {
            buffer.append(contentsOf: "-Infinity".utf8)
        } else {
            buffer.append(contentsOf: description.utf8)
        }
    }
}

extension Float: PGEncodable {
    public static var pgTypeOID: UInt32 { 700 }
    public func pgEncode(into buffer: inout [UInt8]) { Double(self).pgEncode(into: &buffer) }
}

extension Bool: PGEncodable {
    public static var pgTypeOID: UInt32 { 16 }
    public func pgEncode(into buffer: inout [UInt8]) { buffer.append(self ? UInt8(ascii: "t") : UInt8(ascii: "f")) }
}

extension Date: PGEncodable {
    public static var pgTypeOID: UInt32 { 1184 }
    /// Binary, PostgreSQL's own form: no text to print here nor to parse on the server.
    public static var pgFormat: PGFormat { .binary }
    /// Microseconds since 2000-01-01 UTC, a big-endian int64 (`DateTimeText.binaryTimestamp`).
    public func pgEncode(into buffer: inout [UInt8]) {
        withUnsafeBytes(of: DateTimeText.binaryTimestamp(self).bigEndian) { buffer.append(contentsOf: $0) }
    }
}

extension PGDate: PGEncodable {
    public static var pgTypeOID: UInt32 { 1082 }
    public func pgEncode(into buffer: inout [UInt8]) { buffer.append(contentsOf: description.utf8) }
}

extension UUID: PGEncodable {
    public static var pgTypeOID: UInt32 { 2950 }
    public func pgEncode(into buffer: inout [UInt8]) { buffer.append(contentsOf: uuidString.utf8) }
}

extension Data: PGEncodable {
    public static var pgTypeOID: UInt32 { 17 }
    public static var pgFormat: PGFormat { .binary }
    public func pgEncode(into buffer: inout [UInt8]) { buffer.append(contentsOf: self) }
}

/// Elements that can form a PostgreSQL array literal (`text[]`, `int8[]`, ...).
public protocol PGArrayElement: PGEncodable, PGDecodable {}

extension String: PGArrayElement {}
extension Int: PGArrayElement {}
extension Int64: PGArrayElement {}
extension Int32: PGArrayElement {}
extension Double: PGArrayElement {}
extension Bool: PGArrayElement {}
extension UUID: PGArrayElement {}

extension Array: PGEncodable where Element: PGArrayElement {
    /// The array type of the element's type (`int8[]` for `Int`), or 0 to let the server infer it.
    public static var pgTypeOID: UInt32 {
        switch Element.pgTypeOID {
        case 16: return 1000
        case 20: return 1016
        case 21: return 1005
        case 23: return 1007
        case 701: return 1022
        case 2950: return 2951
        default: return 0
        }
    }

    /// Array literal text, `{"a","b"}`, every element quoted and escaped.
    public func pgEncode(into buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "{"))
        var element: [UInt8] = []
        for (index, value) in enumerated() {
            if index > 0 { buffer.append(UInt8(ascii: ",")) }
            element.removeAll(keepingCapacity: true)
            value.pgEncode(into: &element)
            buffer.append(UInt8(ascii: "\""))
            for byte in element {
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { buffer.append(UInt8(ascii: "\\")) }
                buffer.append(byte)
            }
            buffer.append(UInt8(ascii: "\""))
        }
        buffer.append(UInt8(ascii: "}"))
    }
}
