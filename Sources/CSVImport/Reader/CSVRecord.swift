/// One CSV record: its fields (unquoted, with doubled quotes made single) and where it was in
/// the input.
///
/// Field text is kept as UTF-8 bytes, already validated, and turned into `String` only when
/// asked for, so a reader that skips or parses fields from bytes pays for no strings.
public struct CSVRecord: Sendable, Equatable {
    /// The fields' bytes, one after the other.
    private let bytes: [UInt8]
    /// Where each field ends in `bytes`; field `i` starts where field `i - 1` ends.
    private let fieldEnds: [Int]

    /// 1-based physical line on which the record starts.
    public let line: Int
    /// How many bytes of the input (a BOM included) had been consumed once this record and its
    /// line break were read: progress in percent is `byteOffset * 100 / totalByteCount`.
    public let byteOffset: Int

    /// A record from packed field bytes; used by the reader and by tests.
    init(bytes: [UInt8], fieldEnds: [Int], line: Int, byteOffset: Int) {
        self.bytes = bytes
        self.fieldEnds = fieldEnds
        self.line = line
        self.byteOffset = byteOffset
    }

    /// How many fields the record has.
    public var count: Int { fieldEnds.count }

    /// The text of field `index` (0-based).
    public subscript(index: Int) -> String {
        withFieldBytes(index) { String(decoding: $0, as: UTF8.self) }
    }

    /// Every field as text, in order.
    public var fields: [String] {
        bytes.withUnsafeBufferPointer { buffer in
            var start = 0
            return fieldEnds.map { end in
                defer { start = end }
                return String(decoding: UnsafeBufferPointer(rebasing: buffer[start..<end]), as: UTF8.self)
            }
        }
    }

    /// Calls `body` with the UTF-8 bytes of field `index` (0-based) without making a `String`;
    /// the pointer is valid only inside `body`.
    public func withFieldBytes<Result>(
        _ index: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result
    ) rethrows -> Result {
        let start = index == 0 ? 0 : fieldEnds[index - 1]
        let end = fieldEnds[index]
        return try bytes.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[start..<end])) }
    }
}
