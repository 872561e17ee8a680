import Foundation

/// JSON text written straight into bytes, exactly as `WireJSON.makeEncoder()` writes the same
/// document (compact, slashes unescaped, control characters as `\n` or `\u001b`, dates as
/// `WireDate.text`, numbers as Swift prints them), for the documents a server writes on every
/// request: Foundation's encoder builds a tree of boxed values first and sorts every object's
/// keys, which was a fifth of taskserve's CPU on a point read. Keys are written in the order
/// given, so a writer gives them sorted; `JSONWriterTests` holds each writer to the encoder.
public struct JSONWriter {
    /// The text so far.
    public private(set) var bytes: [UInt8]
    /// Whether the next member of the innermost open object or array is its first (no comma).
    private var atFirstMember = true

    /// An empty text with room for `capacity` bytes.
    public init(capacity: Int = 512) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Opens an object (after `key` or `element`, or as the whole document).
    public mutating func beginObject() {
        bytes.append(UInt8(ascii: "{"))
        atFirstMember = true
    }

    /// Closes the innermost object.
    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        atFirstMember = false
    }

    /// Opens an array.
    public mutating func beginArray() {
        bytes.append(UInt8(ascii: "["))
        atFirstMember = true
    }

    /// Closes the innermost array.
    public mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        atFirstMember = false
    }

    /// Starts the next element of the innermost array (a comma after the first).
    public mutating func element() {
        if !atFirstMember { bytes.append(UInt8(ascii: ",")) }
        atFirstMember = false
    }

    /// Starts member `name` of the innermost object: `name` is plain ASCII needing no escape
    /// (a document's own field names).
    public mutating func key(_ name: StaticString) {
        if !atFirstMember { bytes.append(UInt8(ascii: ",")) }
        atFirstMember = false
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    /// A string value, escaped.
    public mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            var start = 0
            for index in utf8.indices {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                start = index + 1
                bytes.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
                case 0x08: bytes.append(UInt8(ascii: "b"))
                case 0x09: bytes.append(UInt8(ascii: "t"))
                case 0x0A: bytes.append(UInt8(ascii: "n"))
                case 0x0C: bytes.append(UInt8(ascii: "f"))
                case 0x0D: bytes.append(UInt8(ascii: "r"))
                default:
                    let hex: StaticString = "0123456789abcdef"
                    hex.withUTF8Buffer { digits in
                        bytes.append(contentsOf: [
                            UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), digits[Int(byte >> 4)], digits[Int(byte & 0xF)],
                        ])
                    }
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// An integer value.
    public mutating func int(_ value: Int64) {
        if value >= 0, value < 10 {
            bytes.append(UInt8(ascii: "0") + UInt8(value))
        } else {
            bytes.append(contentsOf: String(value).utf8)
        }
    }

    /// A number value, as the encoder writes it (`12` for 12.0, `0.125`, `1e-07`).
    public mutating func double(_ value: Double) {
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        bytes.append(contentsOf: text.utf8)
    }

    /// `true` or `false`.
    public mutating func bool(_ value: Bool) {
        let text: StaticString = value ? "true" : "false"
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// `null`.
    public mutating func null() {
        let text: StaticString = "null"
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Ends the line: a document of JSON Lines (a log line) is followed by a newline.
    public mutating func newline() {
        bytes.append(UInt8(ascii: "\n"))
    }

    /// A time, as `WireDate.text` writes it.
    public mutating func date(_ value: Date) {
        bytes.append(UInt8(ascii: "\""))
        WireDate.append(value, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
    }

    /// A string, or `null`.
    public mutating func string(_ value: String?) {
        if let value { string(value) } else { null() }
    }

    /// An integer, or `null`.
    public mutating func int(_ value: Int64?) {
        if let value { int(value) } else { null() }
    }
}

extension JSONWriter {
    /// Member `name` with a string (or `null`).
    public mutating func field(_ name: StaticString, _ value: String?) {
        key(name)
        string(value)
    }

    /// Member `name` with an integer (or `null`).
    public mutating func field(_ name: StaticString, _ value: Int64?) {
        key(name)
        int(value)
    }

    /// Member `name` with `true` or `false`.
    public mutating func field(_ name: StaticString, _ value: Bool) {
        key(name)
        bool(value)
    }

    /// Member `name` with a time.
    public mutating func field(_ name: StaticString, _ value: Date) {
        key(name)
        date(value)
    }

    /// Member `name` with a number.
    public mutating func field(_ name: StaticString, _ value: Double) {
        key(name)
        double(value)
    }
}

/// A document that writes itself with a `JSONWriter`, byte for byte as `WireJSON.makeEncoder()`
/// encodes it; `HTTPResponse.json` takes this path when a document has it.
public protocol JSONWritable: Encodable {
    /// Writes the document as one JSON value.
    func write(to writer: inout JSONWriter)
}

extension JSONWritable {
    /// The document's JSON text.
    public var jsonBytes: [UInt8] {
        var writer = JSONWriter()
        write(to: &writer)
        return writer.bytes
    }
}
