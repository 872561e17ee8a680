/// The record being built: field bytes and field ends in buffers the scanner owns and reuses,
/// so appending a run of bytes is one `memcpy` and a finished record costs two exact-size
/// array copies.
struct RecordBuffer {
    private var bytes: UnsafeMutablePointer<UInt8>
    private var byteCapacity: Int
    /// How many field bytes the record has so far.
    private(set) var byteCount = 0
    private var ends: UnsafeMutablePointer<Int>
    private var endCapacity: Int
    /// How many fields are finished.
    private(set) var fieldCount = 0

    init() {
        byteCapacity = 1024
        bytes = .allocate(capacity: byteCapacity)
        endCapacity = 64
        ends = .allocate(capacity: endCapacity)
    }

    /// Frees the buffers; the owner calls it once, when it is released.
    func deallocate() {
        bytes.deallocate()
        ends.deallocate()
    }

    /// Appends `count` bytes from `source` to the current field.
    mutating func append(_ source: UnsafePointer<UInt8>, count: Int) {
        if byteCount + count > byteCapacity {
            byteCapacity = max(byteCapacity * 2, byteCount + count)
            let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: byteCapacity)
            grown.update(from: bytes, count: byteCount)
            bytes.deallocate()
            bytes = grown
        }
        (bytes + byteCount).update(from: source, count: count)
        byteCount += count
    }

    /// Ends the current field where the bytes end now.
    mutating func endField() {
        if fieldCount == endCapacity {
            endCapacity *= 2
            let grown = UnsafeMutablePointer<Int>.allocate(capacity: endCapacity)
            grown.update(from: ends, count: fieldCount)
            ends.deallocate()
            ends = grown
        }
        ends[fieldCount] = byteCount
        fieldCount += 1
    }

    /// Drops the record being built, for one that is skipped.
    mutating func discardRecord() {
        byteCount = 0
        fieldCount = 0
    }

    /// The finished record, after which the buffer is empty again.
    mutating func takeRecord(line: Int, byteOffset: Int) -> CSVRecord {
        let recordBytes = Array(UnsafeBufferPointer(start: bytes, count: byteCount))
        let fieldEnds = Array(UnsafeBufferPointer(start: ends, count: fieldCount))
        byteCount = 0
        fieldCount = 0
        return CSVRecord(bytes: recordBytes, fieldEnds: fieldEnds, line: line, byteOffset: byteOffset)
    }
}
