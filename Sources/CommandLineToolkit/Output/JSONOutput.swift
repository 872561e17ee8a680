import Foundation

/// The one JSON style of all Taskbase programs: one pretty document, sorted keys, ISO 8601 dates.
public enum JSONOutput {
    /// A fresh encoder with the house settings, for callers that need `Data`.
    public static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    /// `value` as a JSON document ending with a newline.
    public static func encode<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try makeEncoder().encode(value), as: UTF8.self) + "\n"
    }

    /// Writes `value` as one JSON document to `stream` (standard output by default).
    public static func write<T: Encodable>(_ value: T, to stream: StandardStream = .standardOutput) throws {
        try stream.write(try encode(value))
    }
}
