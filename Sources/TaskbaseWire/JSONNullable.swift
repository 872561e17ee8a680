/// An optional that encodes as JSON `null` rather than vanishing, so every documented field of
/// a document is always present and scripts can rely on the keys.
public struct JSONNullable<Wrapped: Encodable>: Encodable {
    /// The value, or nil for `null`.
    public var value: Wrapped?

    /// Wraps `value`.
    public init(_ value: Wrapped?) {
        self.value = value
    }

    /// The value, or `null`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let value { try container.encode(value) } else { try container.encodeNil() }
    }
}

/// Decoding expects the key to be present: `null` is nil, anything else the value.
extension JSONNullable: Decodable where Wrapped: Decodable {
    /// Reads `null` or a value.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        value = container.decodeNil() ? nil : try container.decode(Wrapped.self)
    }
}

extension JSONNullable: Equatable where Wrapped: Equatable {}
extension JSONNullable: Hashable where Wrapped: Hashable {}
extension JSONNullable: Sendable where Wrapped: Sendable {}
