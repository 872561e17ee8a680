import Foundation

extension PGQuery {
    /// Each parameter's value in text form, as the server would take it for the same value
    /// (timestamps as ISO text, other binary parameters as `\x` hex), nil for NULL. For tracing
    /// and for benchmarks that replay a statement with another client; never log it where
    /// secrets may pass.
    public var parameterTexts: [String?] {
        parameters.map { parameter in
            guard parameter.offset >= 0 else { return nil }
            let bytes = parameterBytes[parameter.offset..<(parameter.offset + Int(parameter.length))]
            if parameter.format == PGFormat.binary.rawValue, parameter.typeOID == Date.pgTypeOID {
                return DateTimeText.formatTimestamp(binary: bytes.reduce(0) { $0 << 8 | Int64($1) })
            }
            if parameter.format == PGFormat.binary.rawValue {
                return "\\x"
                    + bytes.map { byte in
                        let hex = String(byte, radix: 16)
                        return byte < 16 ? "0" + hex : hex
                    }.joined()
            }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// Each parameter's type OID (0: inferred by the server).
    public var parameterTypeOIDs: [UInt32] { parameters.map(\.typeOID) }
}
