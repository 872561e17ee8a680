import Foundation
import TaskCore
import TaskbaseWire

/// How the server reads a file the client imports: taskimport's options, sent as the
/// imports route's query parameters (docs/taskimport.md says what each does).
public struct ImportSettings: Hashable, Sendable {
    /// What a row whose external id the team has does (`fail` refuses the import: `alreadyExists`).
    public var onConflict: ImportConflictPolicy
    /// Check everything and write nothing.
    public var dryRun: Bool
    /// Bad rows left out before the import is refused (0: one bad row refuses it).
    public var maxErrors: Int
    /// Fields filled from columns of other names: `["title": "Summary"]`.
    public var columns: [String: String]
    /// The separator (`,`, `;`, `tab`, `|`); nil: detected.
    public var delimiter: String?
    /// The file's encoding (`utf-8`, `utf-16`, `windows-1252`, `latin1`); nil: UTF-8.
    public var encoding: String?

    /// Settings with these values; the defaults are taskimport's.
    public init(
        onConflict: ImportConflictPolicy = .update, dryRun: Bool = false, maxErrors: Int = 0, columns: [String: String] = [:],
        delimiter: String? = nil,
        encoding: String? = nil
    ) {
        self.onConflict = onConflict
        self.dryRun = dryRun
        self.maxErrors = maxErrors
        self.columns = columns
        self.delimiter = delimiter
        self.encoding = encoding
    }

    var queryItems: [URLQueryItem] {
        var items = [URLQueryItem(name: "on-conflict", value: onConflict.rawValue), URLQueryItem(name: "max-errors", value: String(maxErrors))]
        if dryRun { items.append(URLQueryItem(name: "dry-run", value: "true")) }
        for (field, header) in columns.sorted(by: { $0.key < $1.key }) { items.append(URLQueryItem(name: "map", value: "\(field)=\(header)")) }
        if let delimiter { items.append(URLQueryItem(name: "delimiter", value: delimiter)) }
        if let encoding { items.append(URLQueryItem(name: "encoding", value: encoding)) }
        return items
    }
}

/// Whole files in and out: the bulk paths of the API, beside the `TaskSession` calls.
extension TaskbaseClient {
    /// Imports `csv` into `team` as taskimport does, all or nothing, as the token's user
    /// (members), and returns taskimport's summary with every row it left out. A file the
    /// importer refuses is `TaskError.validation` on `body`, whose reason names the line and
    /// column; `onConflict: .fail` meeting a known external id is `alreadyExists`. Safe to
    /// retry: the request carries an `Idempotency-Key`, so a retry never imports twice.
    public func importTasks(csv: Data, into team: TeamKey, settings: ImportSettings = ImportSettings()) async throws -> ImportReportDocument {
        let request = HTTPRequest(
            method: "POST", path: ["v1", "teams", team.rawValue, "imports"], query: settings.queryItems, body: csv,
            headers: ["Content-Type": "text/csv; charset=utf-8", "Idempotency-Key": UUID().uuidString])
        return try decode(ImportReportDocument.self, try await transport.send(request))
    }

    /// Every task of `team` as the CSV the importer reads, the bytes `taskctl export` writes
    /// (any member). `defusingFormulas` starts cells beginning with `=`, `+`, `-` or `@` with
    /// `'`, for spreadsheets. A download the server cut off (a failed read, a stop) is an error,
    /// never a short file.
    public func exportTasks(of team: TeamKey, defusingFormulas: Bool = false) async throws -> Data {
        let query = defusingFormulas ? [URLQueryItem(name: "defuse-formulas", value: "true")] : []
        let request = HTTPRequest(method: "GET", path: ["v1", "teams", team.rawValue, "export"], query: query, headers: ["Accept": "text/csv"])
        return try await transport.send(request).body
    }
}
