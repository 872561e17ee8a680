import Foundation

/// Decodes a row into a `Decodable` type: each coding key names a column. Types that are
/// `PGDecodable` decode from the column's text; other nested `Decodable` values are read as
/// the column's JSON.
public enum PGRowDecoder {
    /// How coding keys map to column names.
    public enum KeyStrategy: Sendable {
        /// `dueDate` reads column `dueDate`.
        case useDefaultKeys
        /// `dueDate` reads column `due_date`.
        case convertToSnakeCase
    }

    struct Decoder: Swift.Decoder {
        let row: PGRow
        let keys: KeyStrategy
        var codingPath: [any CodingKey] = []
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
            KeyedDecodingContainer(KeyedContainer<Key>(row: row, keys: keys))
        }

        func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
            throw DecodingError.typeMismatch([Any].self, .init(codingPath: codingPath, debugDescription: "a row decodes into a keyed type"))
        }

        func singleValueContainer() throws -> any SingleValueDecodingContainer {
            guard row.count == 1 else {
                throw DecodingError.typeMismatch(Any.self, .init(codingPath: codingPath, debugDescription: "a single value needs a one-column row"))
            }
            return FieldContainer(field: try row.field(0), codingPath: codingPath)
        }
    }

    static func columnName(_ key: String, _ strategy: KeyStrategy) -> String {
        guard strategy == .convertToSnakeCase else { return key }
        var result = ""
        for character in key {
            if character.isUppercase {
                if !result.isEmpty { result.append("_") }
                result += character.lowercased()
            } else {
                result.append(character)
            }
        }
        return result
    }

    /// Decodes one field into any `Decodable`: `PGDecodable` types directly, others from JSON.
    static func decodeField<T: Decodable>(_ type: T.Type, _ field: PGField) throws -> T {
        if let decodable = T.self as? any PGDecodable.Type {
            return try decodable.pgDecode(field) as! T
        }
        if T.self is any RawRepresentable.Type || T.self is any OptionalProtocol.Type {
            return try T(from: FieldDecoder(field: field))
        }
        let json = try PGJSON.pgDecode(field)
        do {
            return try json.decode(as: T.self)
        } catch {
            throw field.error("cannot decode JSON into \(T.self): \(error)")
        }
    }

    struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let row: PGRow
        let keys: KeyStrategy
        var codingPath: [any CodingKey] { [] }
        var allKeys: [Key] { (0..<row.count).compactMap { Key(stringValue: row.result.columnName($0)) } }

        func field(_ key: Key) throws -> PGField { try row.field(PGRowDecoder.columnName(key.stringValue, keys)) }

        func contains(_ key: Key) -> Bool { row.result.columnIndex(PGRowDecoder.columnName(key.stringValue, keys)) != nil }

        func decodeNil(forKey key: Key) throws -> Bool { try field(key).bytes == nil }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try PGRowDecoder.decodeField(T.self, field(key))
        }

        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
            guard contains(key) else { return nil }
            let value = try field(key)
            return value.bytes == nil ? nil : try PGRowDecoder.decodeField(T.self, value)
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            throw DecodingError.typeMismatch(type, .init(codingPath: [key], debugDescription: "nested containers are read from JSON columns"))
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            throw DecodingError.typeMismatch([Any].self, .init(codingPath: [key], debugDescription: "nested containers are read from JSON columns"))
        }

        func superDecoder() throws -> any Swift.Decoder { Decoder(row: row, keys: keys) }
        func superDecoder(forKey key: Key) throws -> any Swift.Decoder { Decoder(row: row, keys: keys) }
    }

    /// A decoder over one field, for enums with raw values and optionals of them.
    struct FieldDecoder: Swift.Decoder {
        let field: PGField
        var codingPath: [any CodingKey] = []
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
            throw field.error("is a single value, not a keyed container")
        }

        func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
            throw field.error("is a single value, not a list")
        }

        func singleValueContainer() throws -> any SingleValueDecodingContainer {
            FieldContainer(field: field, codingPath: codingPath)
        }
    }

    struct FieldContainer: SingleValueDecodingContainer {
        let field: PGField
        let codingPath: [any CodingKey]

        func decodeNil() -> Bool { field.bytes == nil }

        func decode<T: Decodable>(_ type: T.Type) throws -> T { try PGRowDecoder.decodeField(T.self, field) }

        func decode(_ type: Bool.Type) throws -> Bool { try Bool.pgDecode(field) }
        func decode(_ type: String.Type) throws -> String { try String.pgDecode(field) }
        func decode(_ type: Double.Type) throws -> Double { try Double.pgDecode(field) }
        func decode(_ type: Float.Type) throws -> Float { try Float.pgDecode(field) }
        func decode(_ type: Int.Type) throws -> Int { try Int.pgDecode(field) }
        func decode(_ type: Int8.Type) throws -> Int8 { try decodeInteger(field, as: Int8.self) }
        func decode(_ type: Int16.Type) throws -> Int16 { try Int16.pgDecode(field) }
        func decode(_ type: Int32.Type) throws -> Int32 { try Int32.pgDecode(field) }
        func decode(_ type: Int64.Type) throws -> Int64 { try Int64.pgDecode(field) }
        func decode(_ type: UInt.Type) throws -> UInt { try decodeInteger(field, as: UInt.self) }
        func decode(_ type: UInt8.Type) throws -> UInt8 { try decodeInteger(field, as: UInt8.self) }
        func decode(_ type: UInt16.Type) throws -> UInt16 { try decodeInteger(field, as: UInt16.self) }
        func decode(_ type: UInt32.Type) throws -> UInt32 { try decodeInteger(field, as: UInt32.self) }
        func decode(_ type: UInt64.Type) throws -> UInt64 { try decodeInteger(field, as: UInt64.self) }
    }
}

/// Lets the row decoder tell optionals apart without knowing their wrapped type.
protocol OptionalProtocol {}
extension Optional: OptionalProtocol {}
