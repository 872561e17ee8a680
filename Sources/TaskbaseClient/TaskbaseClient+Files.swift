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
        var request = Self.importRequest(into: team, settings: settings)
        request.body = csv
        return try decode(ImportReportDocument.self, try await transport.send(request))
    }

    /// `importTasks(csv:into:settings:)` for the file at `file`, read from disk as it is sent
    /// rather than held in memory: a file of any size costs the client a buffer. A file that
    /// cannot be read is `TaskbaseClientError.file`, before anything is sent.
    public func importTasks(
        contentsOf file: URL, into team: TeamKey, settings: ImportSettings = ImportSettings()
    ) async throws
        -> ImportReportDocument
    {
        try Self.checkReadable(file)
        var request = Self.importRequest(into: team, settings: settings)
        request.bodyFile = file
        return try decode(ImportReportDocument.self, try await transport.send(request))
    }

    /// The imports route's request for `team` with `settings`, its body still to be set. The
    /// `Idempotency-Key` is made once, so the transport's retries all carry it.
    private static func importRequest(into team: TeamKey, settings: ImportSettings) -> HTTPRequest {
        HTTPRequest(
            method: "POST", path: ["v1", "teams", team.rawValue, "imports"], query: settings.queryItems,
            headers: ["Content-Type": "text/csv; charset=utf-8", "Idempotency-Key": UUID().uuidString])
    }

    /// Throws `TaskbaseClientError.file` unless `file` is a regular file this process can read.
    private static func checkReadable(_ file: URL) throws {
        var isDirectory: ObjCBool = false
        guard file.isFileURL, FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory) else {
            throw TaskbaseClientError.file("\(file.path): no such file")
        }
        guard !isDirectory.boolValue else { throw TaskbaseClientError.file("\(file.path): a directory, not a file") }
        guard FileManager.default.isReadableFile(atPath: file.path) else { throw TaskbaseClientError.file("\(file.path): not readable") }
    }

    /// Every task of `team` as the CSV the importer reads, the bytes `taskctl export` writes
    /// (any member). `defusingFormulas` starts cells beginning with `=`, `+`, `-` or `@` with
    /// `'`, for spreadsheets. A download the server cut off (a failed read, a stop) is an error,
    /// never a short file.
    public func exportTasks(of team: TeamKey, defusingFormulas: Bool = false) async throws -> Data {
        try await transport.send(Self.exportRequest(of: team, defusingFormulas: defusingFormulas)).body
    }

    /// `exportTasks(of:defusingFormulas:)` written to the file at `destination` as it arrives
    /// rather than held in memory. The file appears, or is replaced, only once the whole export
    /// arrived: a download cut off, refused or cancelled leaves `destination` as it was.
    /// A destination that cannot be written is `TaskbaseClientError.file`.
    public func exportTasks(of team: TeamKey, to destination: URL, defusingFormulas: Bool = false) async throws {
        guard destination.isFileURL else { throw TaskbaseClientError.file("\(destination): not a file URL") }
        var request = Self.exportRequest(of: team, defusingFormulas: defusingFormulas)
        request.destination = destination
        _ = try await transport.send(request)
    }

    /// The export route's request for `team`.
    private static func exportRequest(of team: TeamKey, defusingFormulas: Bool) -> HTTPRequest {
        let query = defusingFormulas ? [URLQueryItem(name: "defuse-formulas", value: "true")] : []
        return HTTPRequest(method: "GET", path: ["v1", "teams", team.rawValue, "export"], query: query, headers: ["Accept": "text/csv"])
    }
}
