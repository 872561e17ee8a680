extension Unicode.Scalar {
    /// A space or tab as Foundation's `CharacterSet.whitespaces` has them: Unicode's space
    /// separators, the tab, and the zero width space (an older Unicode's space separator).
    public var isTrimmedSpace: Bool {
        // ASCII has one space separator, the space itself: no table lookup for it.
        if isASCII { return self == " " || self == "\t" }
        return self == "\u{200B}" || properties.generalCategory == .spaceSeparator
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs (`Unicode.Scalar.isTrimmedSpace`),
    /// as Foundation's `trimmingCharacters(in: .whitespaces)` trims, without its detour through
    /// NSString, which keys, emails and tokens paid on every request.
    public func trimmingSpaces() -> String {
        trimmedOfSpaces()
    }

    /// `trimmingSpaces()` itself, which the concrete types' quick checks fall back to.
    func trimmedOfSpaces() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.isTrimmedSpace }) else { return "" }
        let last = scalars.lastIndex(where: { !$0.isTrimmedSpace })!
        return String(self[first...last])
    }
}

extension String {
    /// `StringProtocol.trimmingSpaces()`, with no copy when the text starts and ends with a
    /// visible ASCII character, as header values, keys and tokens do.
    public func trimmingSpaces() -> String {
        startsAndEndsVisibly(utf8) ? self : self[...].trimmedOfSpaces()
    }
}

extension Substring {
    /// `StringProtocol.trimmingSpaces()`, copied at once when the text starts and ends with a
    /// visible ASCII character, as a bearer token after its scheme does (on every request).
    public func trimmingSpaces() -> String {
        startsAndEndsVisibly(utf8) ? String(self) : trimmedOfSpaces()
    }
}

/// Whether text of `bytes` (UTF-8) starts and ends with a visible ASCII character: nothing to
/// trim, with no scalar decoded.
private func startsAndEndsVisibly(_ bytes: some BidirectionalCollection<UInt8>) -> Bool {
    guard let first = bytes.first, let last = bytes.last else { return false }
    return (0x21..<0x7F).contains(first) && (0x21..<0x7F).contains(last)
}
