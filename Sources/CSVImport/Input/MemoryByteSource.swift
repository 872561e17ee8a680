/// Bytes already in memory, handed out in pieces of at most `maxReadSize` bytes.
///
/// Tests use a tiny `maxReadSize` to put quotes, line breaks and multi-byte characters on
/// chunk boundaries; callers with a small in-memory document use it as is.
public struct MemoryByteSource: ByteSource {
    private let bytes: [UInt8]
    private let maxReadSize: Int
    private var position = 0

    /// A source over `bytes` that returns at most `maxReadSize` bytes per read.
    public init(_ bytes: [UInt8], maxReadSize: Int = .max) {
        precondition(maxReadSize > 0, "maxReadSize must be positive")
        self.bytes = bytes
        self.maxReadSize = maxReadSize
    }

    /// A source over the UTF-8 bytes of `text`.
    public init(_ text: String, maxReadSize: Int = .max) {
        self.init(Array(text.utf8), maxReadSize: maxReadSize)
    }

    /// The whole size is known up front.
    public var totalByteCount: Int? { bytes.count }

    /// Copies the next piece into `buffer`.
    public mutating func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let count = min(buffer.count, maxReadSize, bytes.count - position)
        guard count > 0 else { return 0 }
        bytes.withUnsafeBytes { source in
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[position..<position + count]))
        }
        position += count
        return count
    }
}
