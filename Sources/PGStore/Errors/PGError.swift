import CLibPQ

/// Every failure PGStore reports: a server error with all the fields PostgreSQL sends, or a
/// client-side failure (connection, configuration, decoding, timeout, protocol misuse).
///
/// Its description never contains a password.
public struct PGError: Error, Sendable, CustomStringConvertible {
    /// Where the failure came from.
    public enum Kind: Sendable, Equatable {
        /// The server rejected a statement; `sqlState` and the fields below say why.
        case server
        /// Could not connect, or the connection was lost.
        case connection
        /// The connection settings are unusable.
        case configuration
        /// A value could not be decoded into the requested Swift type.
        case decoding
        /// A connect or query timeout expired.
        case timeout
        /// The connection was used the wrong way (closed, busy, unexpected result).
        case client
        /// A bind parameter cannot be sent as given (a NUL byte in text); nothing was sent.
        case invalidParameter
    }

    /// Where the failure came from.
    public var kind: Kind
    /// Five-character SQLSTATE, e.g. `23505`.
    public var sqlState: String?
    /// ERROR, FATAL, PANIC (or their localized forms).
    public var severity: String?
    /// The primary message (the server's, or ours), passwords masked.
    public var message: String
    /// The server's detail line, e.g. which key already exists.
    public var detail: String?
    /// The server's suggestion of what to do.
    public var hint: String?
    /// Where the server was when the error happened (e.g. the COPY line).
    public var context: String?
    /// The constraint that was violated.
    public var constraint: String?
    /// The schema, table and column the error is about, when the server names them.
    public var schema: String?
    /// See `schema`.
    public var table: String?
    /// See `schema`.
    public var column: String?
    /// 1-based character position in the statement text.
    public var position: Int?
    /// The column being decoded, for decoding errors.
    public var decodingColumn: String?

    init(kind: Kind, message: String) {
        self.kind = kind
        self.message = PGConfig.mask(message)
    }

    static func configuration(_ message: String) -> PGError { PGError(kind: .configuration, message: message) }
    static func connection(_ message: String) -> PGError { PGError(kind: .connection, message: message) }
    static func client(_ message: String) -> PGError { PGError(kind: .client, message: message) }
    static func timeout(_ message: String) -> PGError { PGError(kind: .timeout, message: message) }
    static func invalidParameter(_ message: String) -> PGError { PGError(kind: .invalidParameter, message: message) }
    static func decoding(column: String, _ message: String) -> PGError {
        var error = PGError(kind: .decoding, message: "column \"\(column)\": \(message)")
        error.decodingColumn = column
        return error
    }

    /// The error a failed `PGresult` carries, with every field libpq exposes.
    init(result: OpaquePointer) {
        func field(_ code: Int32) -> String? {
            guard let pointer = PQresultErrorField(result, code) else { return nil }
            return String(cString: pointer)
        }
        let primary = field(Int32(UInt8(ascii: "M"))) ?? String(cString: PQresultErrorMessage(result))
        self.init(kind: .server, message: primary.trimmingCharacters(in: .whitespacesAndNewlines))
        sqlState = field(Int32(UInt8(ascii: "C")))
        severity = field(Int32(UInt8(ascii: "V"))) ?? field(Int32(UInt8(ascii: "S")))
        detail = field(Int32(UInt8(ascii: "D"))).map { PGConfig.mask($0) }
        hint = field(Int32(UInt8(ascii: "H")))
        context = field(Int32(UInt8(ascii: "W")))
        schema = field(Int32(UInt8(ascii: "s")))
        table = field(Int32(UInt8(ascii: "t")))
        column = field(Int32(UInt8(ascii: "c")))
        constraint = field(Int32(UInt8(ascii: "n")))
        position = field(Int32(UInt8(ascii: "P"))).flatMap { Int($0) }
        if sqlState == nil { kind = .connection }
    }

    /// One line for people: severity, SQLSTATE, message, and the detail, hint, constraint and
    /// context when present.
    public var description: String {
        var parts: [String] = []
        if let sqlState {
            parts.append("\(severity ?? "ERROR") \(sqlState): \(message)")
        } else {
            parts.append(message)
        }
        if let detail { parts.append("detail: \(detail)") }
        if let constraint { parts.append("constraint: \(constraint)") }
        if let position { parts.append("position: \(position)") }
        if let hint { parts.append("hint: \(hint)") }
        if let context { parts.append("context: \(context.replacingOccurrences(of: "\n", with: "; "))") }
        return parts.joined(separator: "; ")
    }

    /// The named class of a server error, for callers that branch on it.
    public var code: Code? { sqlState.flatMap(Code.init(rawValue:)) }

    /// SQLSTATEs callers branch on.
    public enum Code: String, Sendable {
        case uniqueViolation = "23505"
        case foreignKeyViolation = "23503"
        case notNullViolation = "23502"
        case checkViolation = "23514"
        case exclusionViolation = "23P01"
        case serializationFailure = "40001"
        case deadlockDetected = "40P01"
        case lockNotAvailable = "55P03"
        case queryCanceled = "57014"
        case adminShutdown = "57P01"
        case undefinedTable = "42P01"
        case undefinedColumn = "42703"
        case duplicateTable = "42P07"
        case syntaxError = "42601"
        case insufficientPrivilege = "42501"
        case invalidPassword = "28P01"
        case invalidAuthorization = "28000"
        case invalidTextRepresentation = "22P02"
        case invalidDatetimeFormat = "22007"
        case datetimeFieldOverflow = "22008"
        case stringDataRightTruncation = "22001"
        case numericValueOutOfRange = "22003"
        case badCopyFileFormat = "22P04"
        case invalidParameterValue = "22023"
        case readOnlySQLTransaction = "25006"
        case invalidSQLStatementName = "26000"
        case featureNotSupported = "0A000"
        case inFailedSQLTransaction = "25P02"
    }

    /// True for errors worth retrying the whole transaction for.
    public var isRetryableTransactionFailure: Bool {
        code == .serializationFailure || code == .deadlockDetected
    }

    /// True when the statement was cancelled (by `Task` cancellation or a timeout).
    public var isCanceled: Bool { code == .queryCanceled }

    /// True when the connection is gone and a new one is needed.
    public var isConnectionLost: Bool { kind == .connection || code == .adminShutdown }
}
