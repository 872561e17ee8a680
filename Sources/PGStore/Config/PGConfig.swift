import CLibPQ
import Foundation

/// Where and how to connect: libpq keyword/value pairs, built from `DATABASE_URL` (a
/// `postgres://` URI or a `key=value` string), the `PG*` variables and `.env`.
///
/// Its description never shows the password.
public struct PGConfig: Sendable, CustomStringConvertible, Equatable {
    /// libpq connection keywords and their values, in a stable order.
    public private(set) var parameters: [(key: String, value: String)]
    /// How long `connect` may take before it gives up.
    public var connectTimeout: Duration
    /// Statements kept prepared per connection (0 turns the cache off, e.g. behind PgBouncer in
    /// transaction mode).
    public var statementCacheSize: Int

    /// A config from a connection string in either form libpq accepts.
    public init(connectionString: String) throws {
        var errorMessage: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(connectionString, &errorMessage) else {
            let detail = errorMessage.map { String(cString: $0) } ?? "unparseable"
            if let errorMessage { PQfreemem(errorMessage) }
            throw PGError.configuration(
                "invalid connection string \(PGConfig.mask(connectionString)): \(detail.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
        defer { PQconninfoFree(options) }
        var parameters: [(key: String, value: String)] = []
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val {
                parameters.append((String(cString: keyword), String(cString: value)))
            }
            option += 1
        }
        self.init(parameters: parameters)
    }

    /// A config from explicit libpq keywords (`host`, `port`, `dbname`, `user`, `password`, ...).
    public init(parameters: [(key: String, value: String)]) {
        self.parameters = parameters
        self.connectTimeout = .seconds(10)
        self.statementCacheSize = 100
        if let seconds = parameters.last(where: { $0.key == "connect_timeout" }).flatMap({ Int($0.value) }), seconds > 0 {
            connectTimeout = .seconds(seconds)
        }
    }

    /// libpq's environment variables and the keywords they stand for.
    static let environmentKeywords: [(variable: String, keyword: String)] = [
        ("PGHOST", "host"), ("PGHOSTADDR", "hostaddr"), ("PGPORT", "port"), ("PGDATABASE", "dbname"),
        ("PGUSER", "user"), ("PGPASSWORD", "password"), ("PGPASSFILE", "passfile"),
        ("PGOPTIONS", "options"), ("PGAPPNAME", "application_name"), ("PGSSLMODE", "sslmode"),
        ("PGSSLCERT", "sslcert"), ("PGSSLKEY", "sslkey"), ("PGSSLROOTCERT", "sslrootcert"),
        ("PGSSLCRL", "sslcrl"), ("PGCONNECT_TIMEOUT", "connect_timeout"),
        ("PGTARGETSESSIONATTRS", "target_session_attrs"), ("PGCHANNELBINDING", "channel_binding"),
        ("PGGSSENCMODE", "gssencmode"), ("PGSERVICE", "service"),
    ]

    /// The configuration the programs use: `DATABASE_URL`, else the `PG*` variables, with
    /// `.env` (in `directory`) supplying what the real environment does not set.
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment,
        dotEnvDirectory: String = FileManager.default.currentDirectoryPath
    ) throws -> PGConfig {
        var effective = DotEnv.load(path: dotEnvDirectory + "/.env")
        effective.merge(environment) { _, real in real }
        var parameters: [(key: String, value: String)] = []
        for (variable, keyword) in environmentKeywords {
            if let value = effective[variable], !value.isEmpty { parameters.append((keyword, value)) }
        }
        if let url = effective["DATABASE_URL"], !url.isEmpty {
            let fromURL = try PGConfig(connectionString: url).parameters
            let named = Set(fromURL.map(\.key))
            parameters.removeAll { named.contains($0.key) }
            parameters.append(contentsOf: fromURL)
        }
        var config = PGConfig(parameters: parameters)
        if let size = effective["TASKBASE_STATEMENT_CACHE"].flatMap(Int.init) { config.statementCacheSize = max(0, size) }
        return config
    }

    /// The value of a libpq keyword, if set.
    public subscript(keyword: String) -> String? {
        get { parameters.last(where: { $0.key == keyword })?.value }
        set {
            parameters.removeAll { $0.key == keyword }
            if let newValue { parameters.append((keyword, newValue)) }
        }
    }

    /// `key=value` pairs with the password shown as `***`.
    public var description: String {
        parameters.map { "\($0.key)=\($0.key == "password" ? "***" : quoteValue($0.value))" }.joined(separator: " ")
    }

    public static func == (lhs: PGConfig, rhs: PGConfig) -> Bool {
        lhs.parameters.elementsEqual(rhs.parameters) { $0.key == $1.key && $0.value == $1.value }
            && lhs.connectTimeout == rhs.connectTimeout && lhs.statementCacheSize == rhs.statementCacheSize
    }

    private func quoteValue(_ value: String) -> String {
        if !value.isEmpty, !value.contains(where: { $0 == " " || $0 == "'" || $0 == "\\" }) { return value }
        return "'" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }

    private static let maskPatterns: [(NSRegularExpression, String)] = [
        (try! NSRegularExpression(pattern: #"(://[^:/@\s]*:)[^/@\s]*@"#), "$1***@"),
        (try! NSRegularExpression(pattern: #"(password\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s&]+)"#, options: [.caseInsensitive]), "$1***"),
    ]

    /// Replaces passwords in any text that may hold a connection string: the password part of
    /// `scheme://user:password@`, `password=...` in key/value strings and URI query parameters.
    public static func mask(_ text: String) -> String {
        var result = text
        for (regex, template) in maskPatterns {
            let range = NSRange(result.startIndex..., in: result)
            result = regex.stringByReplacingMatches(in: result, range: range, withTemplate: template)
        }
        return result
    }
}
