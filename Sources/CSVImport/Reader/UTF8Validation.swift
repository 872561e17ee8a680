/// What a UTF-8 check of a buffer found.
enum UTF8Check: Equatable {
    /// Every byte belongs to a complete, valid sequence.
    case valid
    /// Valid up to `offset`, where a sequence starts that the buffer ends too early to finish;
    /// the next chunk decides.
    case incompleteTail(at: Int)
    /// The sequence starting at `offset` is not UTF-8; `length` is how many bytes it spoils
    /// (Unicode's "maximal subpart": the lead byte and the continuation bytes that fit it).
    case invalid(at: Int, length: Int)
}

/// The bit set in every byte of a word that has its high bit set.
private let highBits: UInt64 = 0x8080_8080_8080_8080

/// Checks that `bytes` is UTF-8 as Unicode defines it (no overlong forms, no surrogates,
/// nothing above U+10FFFF), eight ASCII bytes at a time.
func checkUTF8(_ bytes: UnsafePointer<UInt8>, count: Int) -> UTF8Check {
    var index = 0
    while index < count {
        while index + 8 <= count,
            UnsafeRawPointer(bytes + index).loadUnaligned(as: UInt64.self) & highBits == 0
        {
            index += 8
        }
        guard index < count else { break }
        let lead = bytes[index]
        if lead < 0x80 {
            index += 1
            continue
        }
        let continuationCount: Int
        var secondLow: UInt8 = 0x80
        var secondHigh: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: continuationCount = 1
        case 0xE0: continuationCount = 2; secondLow = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: continuationCount = 2
        case 0xED: continuationCount = 2; secondHigh = 0x9F
        case 0xF0: continuationCount = 3; secondLow = 0x90
        case 0xF1...0xF3: continuationCount = 3
        case 0xF4: continuationCount = 3; secondHigh = 0x8F
        default: return .invalid(at: index, length: 1)
        }
        for offset in 1...continuationCount {
            guard index + offset < count else { return .incompleteTail(at: index) }
            let byte = bytes[index + offset]
            let low = offset == 1 ? secondLow : 0x80
            let high = offset == 1 ? secondHigh : 0xBF
            guard byte >= low, byte <= high else { return .invalid(at: index, length: offset) }
        }
        index += continuationCount + 1
    }
    return .valid
}

/// How many Unicode scalars start in `bytes[start..<end]` (valid UTF-8 assumed): every byte
/// that is not a continuation byte `10xxxxxx` starts one.
func countScalars(_ bytes: UnsafePointer<UInt8>, from start: Int, to end: Int) -> Int {
    var index = start
    var continuations = 0
    while index + 8 <= end {
        let word = UnsafeRawPointer(bytes + index).loadUnaligned(as: UInt64.self)
        continuations += (word & ~(word << 1) & highBits).nonzeroBitCount
        index += 8
    }
    while index < end {
        if bytes[index] & 0xC0 == 0x80 { continuations += 1 }
        index += 1
    }
    return end - start - continuations
}
