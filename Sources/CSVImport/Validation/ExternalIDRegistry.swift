/// The external ids seen so far in a file, as 64-bit fingerprints with the line of their first
/// row, so a repeated id is reported with both lines.
///
/// Fingerprints keep the memory per row at about 12 bytes whatever the ids look like (twelve
/// megabytes for a million rows); two different ids sharing a fingerprint is a one in 10^7
/// chance in a file of a million rows, and the store's own check stands behind this one.
struct ExternalIDRegistry {
    private var firstLines: [UInt64: UInt32] = [:]

    /// Records `externalID` at `line`; returns the earlier line when it was already there.
    mutating func register(_ externalID: String, line: Int) -> Int? {
        var hash = ContentHash()
        hash.combineField(externalID)
        if let first = firstLines[hash.fingerprint] { return Int(first) }
        firstLines[hash.fingerprint] = UInt32(clamping: line)
        return nil
    }
}
