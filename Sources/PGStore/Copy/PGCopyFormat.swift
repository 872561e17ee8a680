import CLibPQ

/// The data format of a COPY: PostgreSQL's text format (tab-separated, `\N` for NULL) or CSV
/// (RFC 4180 quoting, an unquoted empty field for NULL).
public struct PGCopyFormat: Sendable, Equatable {
    enum Kind: Sendable {
        case text
        case csv
    }

    let kind: Kind
    /// CSV only: the first line is a header (skipped by COPY FROM, written by COPY TO).
    public var header: Bool

    /// PostgreSQL's text format.
    public static let text = PGCopyFormat(kind: .text, header: false)
    /// CSV without a header line.
    public static let csv = PGCopyFormat(kind: .csv, header: false)

    /// CSV, with or without a header line.
    public static func csv(header: Bool) -> PGCopyFormat { PGCopyFormat(kind: .csv, header: header) }

    /// The `WITH (...)` clause of the COPY statement.
    var sqlOptions: String {
        switch kind {
        case .text: return ""
        case .csv: return header ? " WITH (FORMAT csv, HEADER true)" : " WITH (FORMAT csv)"
        }
    }

    /// Appends one row of `fields` (nil is NULL) in this format, newline included.
    func encodeRow<Fields: Sequence>(_ fields: Fields, into buffer: inout [UInt8]) where Fields.Element == String? {
        var first = true
        for field in fields {
            if !first { buffer.append(kind == .text ? 0x09 : UInt8(ascii: ",")) }
            first = false
            guard let field else {
                if kind == .text { buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "N")]) }
                continue
            }
            switch kind {
            case .text: Self.appendTextField(field, to: &buffer)
            case .csv: Self.appendCSVField(field, to: &buffer)
            }
        }
        buffer.append(0x0A)
    }

    /// Copies the runs between escapes whole: appending byte by byte was 18% of taskimport's
    /// CPU (`perf record`, 200,000 rows), each append checking capacity and uniqueness.
    private static func appendTextField(_ field: String, to buffer: inout [UInt8]) {
        var field = field
        field.withUTF8 { bytes in
            var start = 0
            for index in bytes.indices {
                let escaped: UInt8
                switch bytes[index] {
                case UInt8(ascii: "\\"): escaped = UInt8(ascii: "\\")
                case 0x09: escaped = UInt8(ascii: "t")
                case 0x0A: escaped = UInt8(ascii: "n")
                case 0x0D: escaped = UInt8(ascii: "r")
                default: continue
                }
                buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
                buffer.append(UInt8(ascii: "\\"))
                buffer.append(escaped)
                start = index + 1
            }
            buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
        }
    }

    /// Quotes a field when it holds a delimiter, quote or line break, when it is empty (an
    /// unquoted empty field is NULL) and when it is `\.` (the end-of-data marker).
    private static func appendCSVField(_ field: String, to buffer: inout [UInt8]) {
        let utf8 = field.utf8
        let needsQuotes =
            utf8.isEmpty || field == "\\."
            || utf8.contains { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0A || $0 == 0x0D }
        guard needsQuotes else {
            buffer.append(contentsOf: utf8)
            return
        }
        buffer.append(UInt8(ascii: "\""))
        for byte in utf8 {
            if byte == UInt8(ascii: "\"") { buffer.append(byte) }
            buffer.append(byte)
        }
        buffer.append(UInt8(ascii: "\""))
    }
}

extension PGConnection {
    /// `"table" ("a", "b")`: the target of a COPY, every name a quoted identifier.
    static func copyTarget(table: String, columns: [String]) -> String {
        var target = PGQuery.quoteIdentifier(table)
        if !columns.isEmpty { target += " (" + columns.map(PGQuery.quoteIdentifier).joined(separator: ", ") + ")" }
        return target
    }

    /// Sends a COPY statement and waits until the server is in COPY mode; a statement the
    /// server rejects (no such table) throws here, the connection left idle.
    func startCopy(_ sql: String, expecting status: ExecStatusType) async throws {
        try send(PGQuery(unsafeSQL: sql))
        try await withTaskCancellationHandler {
            try await waitUntilResultReady(deadline: nil, cancelState: CancelState())
        } onCancel: {
            cancelHandle.cancel()
        }
        guard let raw = PQgetResult(handle) else { throw PGError.client("the server returned no result for COPY") }
        let result = PGResult(raw)
        if result.status == status { return }
        let failure = Self.error(from: result, sql: sql, timedOut: false, timeout: nil)
        _ = try await collectResults(timeout: nil, sql: sql)
        throw failure
    }
}
