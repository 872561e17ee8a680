/// Up to four bytes a scan stops at, searched for eight bytes at a time (SWAR: a zero byte in
/// `word ^ pattern` marks a match).
struct StopBytes {
    private let patterns: (UInt64, UInt64, UInt64, UInt64)
    private let bytes: (UInt8, UInt8, UInt8, UInt8)

    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// Stops at any of `a`, `b`, `c`, `d` (repeat one to search for fewer).
    init(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) {
        bytes = (a, b, c, d)
        patterns = (UInt64(a) &* Self.ones, UInt64(b) &* Self.ones, UInt64(c) &* Self.ones, UInt64(d) &* Self.ones)
    }

    /// The high bit of each byte of `word` that is zero (exact for the lowest such byte).
    @inline(__always)
    private static func zeroBytes(_ word: UInt64) -> UInt64 {
        (word &- ones) & ~word & highBits
    }

    /// The index of the first stop byte in `buffer[start..<end]`, or `end` when there is none.
    @inline(__always)
    func firstIndex(in buffer: UnsafePointer<UInt8>, from start: Int, to end: Int) -> Int {
        var index = start
        while index + 8 <= end {
            let word = UInt64(littleEndian: UnsafeRawPointer(buffer + index).loadUnaligned(as: UInt64.self))
            let found =
                Self.zeroBytes(word ^ patterns.0) | Self.zeroBytes(word ^ patterns.1)
                | Self.zeroBytes(word ^ patterns.2) | Self.zeroBytes(word ^ patterns.3)
            if found != 0 {
                return index + found.trailingZeroBitCount / 8
            }
            index += 8
        }
        while index < end {
            let byte = buffer[index]
            if byte == bytes.0 || byte == bytes.1 || byte == bytes.2 || byte == bytes.3 { return index }
            index += 1
        }
        return end
    }
}
