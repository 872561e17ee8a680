/// An optional that encodes as JSON `null` rather than vanishing, so every documented field of
/// a document is always present and scripts can rely on the keys.
struct JSONNullable<Wrapped: Encodable>: Encodable {
    /// The value, or nil for `null`.
    var value: Wrapped?

    /// Wraps `value`.
    init(_ value: Wrapped?) {
        self.value = value
    }

    /// The value, or `null`.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let value { try container.encode(value) } else { try container.encodeNil() }
    }
}
