/// How far an import has read, for a progress line.
public struct ImportProgress: Sendable, Equatable {
    /// Data rows read so far (the header excluded), good or bad.
    public var rowsRead: Int
    /// Bytes of the input parsed so far.
    public var bytesRead: Int
    /// The input's size when known (a regular file), else nil.
    public var totalBytes: Int?

    /// The share of the input read, 0...1, when its size is known.
    public var fraction: Double? {
        guard let totalBytes, totalBytes > 0 else { return nil }
        return Double(bytesRead) / Double(totalBytes)
    }
}
