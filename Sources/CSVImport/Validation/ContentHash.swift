/// FNV-1a with a 128-bit state: a small, fast, frozen hash for the external ids derived from a
/// row's content and for the fingerprints of the duplicate check. Not cryptographic: nobody
/// gains anything by making two of their own rows collide.
///
/// The algorithm and its constants are frozen: a derived external id stored by one version must
/// be derived again, byte for byte, by every later one, or re-imports would duplicate tasks.
struct ContentHash {
    /// The FNV-128 offset basis.
    private var high: UInt64 = 0x6C62_272E_07BB_0142
    private var low: UInt64 = 0x62B8_2175_6295_C58D

    /// Mixes in `bytes`.
    mutating func combine<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        for byte in bytes { combine(byte) }
    }

    /// Mixes in one byte: xor, then multiply by the FNV-128 prime 2^88 + 0x13B (mod 2^128).
    @inline(__always)
    mutating func combine(_ byte: UInt8) {
        low ^= UInt64(byte)
        let product = low.multipliedFullWidth(by: 0x13B)
        high = high &* 0x13B &+ product.high &+ (low << 24)
        low = product.low
    }

    /// Mixes in a text's UTF-8 and a separator no text contains, so that ("ab", "c") and
    /// ("a", "bc") differ.
    mutating func combineField(_ text: String) {
        var text = text
        text.withUTF8 { combine($0) }
        combine(0xFF)
    }

    /// The 128-bit value as 32 lowercase hex digits.
    var hexDigits: String {
        Self.hex(high) + Self.hex(low)
    }

    /// 64 bits of the value, for fingerprints.
    var fingerprint: UInt64 { high ^ low }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
