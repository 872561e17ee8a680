import CSVImport

/// Serves `text` in one read, then fails the way a disk or a network file system can.
struct FailingByteSource: ByteSource {
    struct Failure: Error, CustomStringConvertible {
        var description: String { "cannot read tasks.csv: Input/output error" }
    }

    var text: [UInt8]
    var served = false
    var totalByteCount: Int? { nil }

    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard !served else { throw Failure() }
        served = true
        buffer.copyBytes(from: text)
        return text.count
    }
}
