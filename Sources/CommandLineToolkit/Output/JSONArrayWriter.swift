import Foundation

/// Streams a JSON array element by element, in the house style of `JSONOutput`, so an export of
/// any size is one valid document without holding every element in memory.
///
/// The text is the same as `JSONOutput.encode` of the whole array. Call `finish()` at the end:
/// it closes the array and flushes; nothing is written on deinit.
public final class JSONArrayWriter {
    private let buffer: BufferedOutput
    private let encoder = JSONOutput.makeEncoder()
    private var count = 0

    /// A writer that hands chunks of about `bufferCapacity` bytes to `sink`.
    public init(bufferCapacity: Int = 64 * 1024, sink: @escaping (UnsafeRawBufferPointer) throws -> Void) {
        buffer = BufferedOutput(capacity: bufferCapacity, sink: sink)
        buffer.append(UInt8(ascii: "["))
    }

    /// A writer to standard output or standard error.
    public convenience init(stream: StandardStream, bufferCapacity: Int = 64 * 1024) {
        self.init(bufferCapacity: bufferCapacity, sink: BufferedOutput.writing(to: stream.fileDescriptor))
    }

    /// Appends one element.
    public func append<T: Encodable>(_ element: T) throws {
        let encoded = try encoder.encode(element)
        buffer.append(contentsOf: (count == 0 ? "\n  " : ",\n  ").utf8)
        var lineStart = false
        for byte in encoded {
            let isNewline = byte == UInt8(ascii: "\n")
            if lineStart && !isNewline { buffer.append(contentsOf: "  ".utf8) }
            buffer.append(byte)
            lineStart = isNewline
        }
        count += 1
        try buffer.flushIfFull()
    }

    /// Hands what is buffered to the sink now, leaving the array open.
    public func flush() throws {
        try buffer.flush()
    }

    /// Closes the array, ends the document with a newline and flushes.
    public func finish() throws {
        buffer.append(contentsOf: (count == 0 ? "\n\n]\n" : "\n]\n").utf8)
        try buffer.flush()
    }
}
