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
            var detail = errorMessage.map { String(cString: $0) } ?? "unparseable"
            if let errorMessage { PQfreemem(errorMessage) }
            // libpq quotes the word it stumbled on, which may be the password itself.
            for word in PGConfig.hiddenWords(ofConnectionString: connectionString) where !word.isEmpty {
                detail = detail.replacingOccurrences(of: "\"\(word)\"", with: "\"***\"")
            }
            throw PGError.configuration(
                "invalid connection string \(PGConfig.mask(connectionString: connectionString)): \(detail.trimmingCharacters(in: .whitespacesAndNewlines))"
            )
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

    /// The configuration the programs use: `DATABASE_URL`, else the `PG*` variables. A `.env` file
    /// (in `dotEnvDirectory`) only fills in what the real environment leaves unset, and supplies
    /// no connection settings at all once the environment names any (`DATABASE_URL` or a `PG*`
    /// variable): libpq would otherwise send the environment's `PGPASSWORD` to the file's host.
    /// `notice` receives one line, without values, whenever the file is used or set aside.
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment,
        dotEnvDirectory: String = FileManager.default.currentDirectoryPath,
        notice: (String) -> Void = { _ in }
    ) throws -> PGConfig {
        let effective = try effectiveEnvironment(environment, dotEnvPath: dotEnvDirectory + "/.env", notice: notice)
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
        if let text = effective["TASKBASE_STATEMENT_CACHE"], !text.isEmpty {
            guard let size = Int(text.trimmingCharacters(in: .whitespaces)), size >= 0 else {
                throw PGError.configuration(
                    "TASKBASE_STATEMENT_CACHE must be a whole number of statements, 0 or more (0 turns the cache off), not '\(text)'")
            }
            config.statementCacheSize = size
        }
        return config
    }

    /// Whether a variable is one that says where to connect: libpq reads every `PG*` variable.
    static func isConnectionVariable(_ name: String) -> Bool {
        name == "DATABASE_URL" || name.hasPrefix("PG")
    }

    /// Whether a `.env` entry is one the configuration reads: the connection and the statement
    /// cache. The programs' other settings (`TASKBASE_ACTOR`, the timeouts, the token key…)
    /// come from the real environment only.
    static func isReadFromDotEnv(_ name: String) -> Bool {
        isConnectionVariable(name) || name == "TASKBASE_STATEMENT_CACHE"
    }

    /// The environment with the `.env` file's variables under it, as `fromEnvironment` reads it.
    private static func effectiveEnvironment(
        _ environment: [String: String], dotEnvPath: String, notice: (String) -> Void
    ) throws -> [String: String] {
        var fromFile = DotEnv.load(path: dotEnvPath)
        guard !fromFile.isEmpty else { return environment }
        let realConnection = environment.filter { isConnectionVariable($0.key) && !$0.value.isEmpty }.keys.sorted()
        let fileConnection = fromFile.keys.filter(isConnectionVariable).sorted()
        if !realConnection.isEmpty, !fileConnection.isEmpty {
            fileConnection.forEach { fromFile[$0] = nil }
            notice(
                "ignoring \(fileConnection.joined(separator: ", ")) in \(dotEnvPath): the environment sets "
                    + "\(realConnection.joined(separator: ", ")), and the environment wins")
        }
        let unset = fromFile.keys.filter { environment[$0] == nil }
        let used = unset.filter(isReadFromDotEnv).sorted(), unread = unset.filter { !isReadFromDotEnv($0) }.sorted()
        if !used.isEmpty { notice("reading \(used.joined(separator: ", ")) from \(dotEnvPath)") }
        if !unread.isEmpty {
            notice(
                "not reading \(unread.joined(separator: ", ")) from \(dotEnvPath): a .env gives the connection only; "
                    + "export the others (docker compose passes them from it)")
        }
        return environment.merging(fromFile) { real, _ in real }
    }

    /// The value of a libpq keyword, if set.
    public subscript(keyword: String) -> String? {
        get { parameters.last(where: { $0.key == keyword })?.value }
        set {
            parameters.removeAll { $0.key == keyword }
            if let newValue { parameters.append((keyword, newValue)) }
        }
    }

    /// `key=value` pairs with the password (and any keyword not known to be harmless) shown as `***`.
    public var description: String {
        parameters.map { "\($0.key)=\(Self.isSafeToShow($0.key) ? quoteValue($0.value) : "***")" }.joined(separator: " ")
    }

    public static func == (lhs: PGConfig, rhs: PGConfig) -> Bool {
        lhs.parameters.elementsEqual(rhs.parameters) { $0.key == $1.key && $0.value == $1.value }
            && lhs.connectTimeout == rhs.connectTimeout && lhs.statementCacheSize == rhs.statementCacheSize
    }

    private func quoteValue(_ value: String) -> String {
        if !value.isEmpty, !value.contains(where: { $0 == " " || $0 == "'" || $0 == "\\" }) { return value }
        return "'" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }

    /// libpq's keywords whose values may be shown: every one libpq itself does not treat as a
    /// secret (its `dispchar` is `*` for `password` and `sslpassword`).
    private static let safeKeywords: Set<String> = {
        var names: Set<String> = []
        guard let defaults = PQconndefaults() else { return names }
        defer { PQconninfoFree(defaults) }
        var option = defaults
        while let keyword = option.pointee.keyword {
            if let display = option.pointee.dispchar, String(cString: display) != "*" { names.insert(String(cString: keyword)) }
            option += 1
        }
        return names
    }()

    /// Whether the value of `key` can be shown: only libpq keywords known not to hold a secret.
    static func isSafeToShow(_ key: String) -> Bool {
        safeKeywords.contains(key.lowercased())
    }

    /// The password of `scheme://user:password@host`, up to the last `@` of the word (an
    /// unencoded `@` inside the password must not leave its tail behind).
    private static let uriPassword = try! NSRegularExpression(pattern: #"(\b[A-Za-z][A-Za-z0-9+.-]*://[^:/@\s]*:)\S*@"#)
    /// `key=value` and `key = 'quoted value'`, in key/value strings and URI query parameters.
    private static let keyValue = try! NSRegularExpression(pattern: #"\b([A-Za-z_][A-Za-z0-9_]*)(\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s&'][^\s&]*)"#)
    /// A word of a key/value string: a `key=value` pair or a bare word.
    private static let keyValueWord = try! NSRegularExpression(pattern: #"[A-Za-z_][A-Za-z0-9_]*\s*=\s*(?:'(?:[^'\\]|\\.)*'|\S*)|\S+"#)

    /// Replaces passwords in any text that may hold a connection string: the password part of
    /// `scheme://user:password@`, and the value of every `key=value` (key/value strings, URI
    /// query parameters) whose key is not a libpq keyword known to be harmless.
    public static func mask(_ text: String) -> String {
        var result = uriPassword.stringByReplacingMatches(in: text, range: NSRange(text.startIndex..., in: text), withTemplate: "$1***@")
        for match in keyValue.matches(in: result, range: NSRange(result.startIndex..., in: result)).reversed() {
            guard let key = Range(match.range(at: 1), in: result), !isSafeToShow(String(result[key])),
                let value = Range(match.range(at: 3), in: result)
            else { continue }
            result.replaceSubrange(value, with: "***")
        }
        return result
    }

    /// `text`, a connection string, with nothing shown that cannot be parsed as safe: besides
    /// what `mask` hides, every word of a key/value string that is not `keyword=value`
    /// (a bare value, e.g. a password whose `password=` was lost) becomes `***`.
    public static func mask(connectionString text: String) -> String {
        let masked = mask(text)
        if isURI(masked) { return masked }
        return words(of: masked).map { $0.contains("=") ? $0 : "***" }.joined(separator: " ")
    }

    /// The words `mask(connectionString:)` hides, as written in `text`, so that a parser's
    /// message quoting one of them can be masked too.
    static func hiddenWords(ofConnectionString text: String) -> [String] {
        let range = NSRange(text.startIndex..., in: text)
        var hidden = uriPassword.matches(in: text, range: range).compactMap { match -> String? in
            guard let whole = Range(match.range, in: text), let prefix = Range(match.range(at: 1), in: text) else { return nil }
            return String(text[prefix.upperBound..<text.index(before: whole.upperBound)])
        }
        for match in keyValue.matches(in: text, range: range) {
            guard let key = Range(match.range(at: 1), in: text), !isSafeToShow(String(text[key])),
                let value = Range(match.range(at: 3), in: text)
            else { continue }
            hidden.append(String(text[value]))
        }
        if !isURI(text) { hidden += words(of: text).filter { !$0.contains("=") } }
        return hidden
    }

    private static func isURI(_ text: String) -> Bool {
        text.range(of: #"^\s*[A-Za-z][A-Za-z0-9+.-]*://"#, options: .regularExpression) != nil
    }

    private static func words(of text: String) -> [String] {
        keyValueWord.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { match in
            Range(match.range, in: text).map { String(text[$0]) }
        }
    }
}
