/// The external ids seen so far in a file, as 64-bit fingerprints with the line of their first
/// row, so a repeated id is reported with both lines.
///
/// An open-addressing table of two flat arrays (fingerprint, line): 12 bytes a slot, filled up
/// to 90%. The importer sizes it once from the file's size after the first batch, so a large
/// file costs about 13 bytes a row and no rehashing (which would briefly hold two tables);
/// standard input, whose size is unknown, grows it by doubling. Two different ids sharing a
/// fingerprint is a one in 10^7 chance in a file of a million rows, and the store's own check
/// stands behind this one.
struct ExternalIDRegistry {
    private var fingerprints: [UInt64]
    private var lines: [UInt32]
    private var count = 0

    /// An empty registry with room for `expectedCount` ids before it grows.
    init(expectedCount: Int = 4_096) {
        let capacity = Self.capacity(for: expectedCount)
        fingerprints = Array(repeating: 0, count: capacity)
        lines = Array(repeating: 0, count: capacity)
    }

    /// Makes room for `expectedCount` ids in all, once, so the table need not grow later.
    mutating func reserve(expectedCount: Int) {
        let capacity = Self.capacity(for: expectedCount)
        if capacity > fingerprints.count { rehash(capacity: capacity) }
    }

    /// Records `externalID` at `line`; returns the earlier line when it was already there.
    mutating func register(_ externalID: String, line: Int) -> Int? {
        var hash = ContentHash()
        hash.combineField(externalID)
        let fingerprint = max(hash.fingerprint, 1)
        if (count + 1) * 10 > fingerprints.count * 9 { rehash(capacity: fingerprints.count * 2) }
        var slot = home(of: fingerprint)
        while true {
            let stored = fingerprints[slot]
            if stored == fingerprint { return Int(lines[slot]) }
            if stored == 0 {
                fingerprints[slot] = fingerprint
                lines[slot] = UInt32(clamping: line)
                count += 1
                return nil
            }
            slot = slot + 1 == fingerprints.count ? 0 : slot + 1
        }
    }

    /// The first slot to try: the fingerprint, mixed, scaled onto the table (no power-of-two
    /// sizes). FNV's top bits barely change between ids that differ in their last characters
    /// (EXT-1, EXT-2, ...): scaled unmixed, they fell into long runs of taken slots, and probing
    /// them was 54% of taskimport's CPU on 200,000 such ids (`perf record`).
    private func home(of fingerprint: UInt64) -> Int {
        Int(Self.mixed(fingerprint).multipliedFullWidth(by: UInt64(fingerprints.count)).high)
    }

    /// MurmurHash3's 64-bit finalizer: every input bit moves every output bit.
    private static func mixed(_ value: UInt64) -> UInt64 {
        var x = value
        x ^= x >> 33
        x &*= 0xFF51_AFD7_ED55_8CCD
        x ^= x >> 33
        x &*= 0xC4CE_B9FE_1A85_EC53
        x ^= x >> 33
        return x
    }

    private mutating func rehash(capacity: Int) {
        let oldFingerprints = fingerprints, oldLines = lines
        fingerprints = Array(repeating: 0, count: capacity)
        lines = Array(repeating: 0, count: capacity)
        for (index, fingerprint) in oldFingerprints.enumerated() where fingerprint != 0 {
            var slot = home(of: fingerprint)
            while fingerprints[slot] != 0 { slot = slot + 1 == capacity ? 0 : slot + 1 }
            fingerprints[slot] = fingerprint
            lines[slot] = oldLines[index]
        }
    }

    /// Slots for `count` ids at 90% load.
    private static func capacity(for count: Int) -> Int {
        max(1_024, count / 9 * 10 + 10)
    }
}
