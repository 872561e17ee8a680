import CSVImport
import Foundation
import Synchronization
import TaskCore
import TaskbaseWire

/// `POST /v1/teams/{team}/imports`: a CSV body through taskimport's pipeline (`TaskCSVImport`),
/// with taskimport's options as query parameters of the same names (`on-conflict`, `dry-run`,
/// `max-errors`, `map`, `delimiter`, `encoding`, `max-field-size`). The answer is taskimport's
/// `--json` summary with the first refused rows (`TaskCSVImport.keptRejections`; `rejected`
/// counts them all); all or nothing, as taskimport is.
extension APIHandlers {
    func importTasks(_ context: RouteContext) async throws -> HTTPResponse {
        // Advice names the query parameters this route takes, not taskimport's flags.
        try await OptionSpelling.$current.withValue(.query) {
            // Read once. `Idempotency-Key` counts them as the import reads them, or as sent when
            // it refuses them (the request is refused, and its key freed); the refusal itself
            // comes after the access check.
            let options = Result { try importOptions(context) }
            return try await idempotent(context, query: (try? options.get())?.arguments ?? context.request.query) {
                try await importTasksAnswered(context, options: options)
            }
        }
    }

    private func importTasksAnswered(_ context: RouteContext, options: Result<ImportOptions, any Error>) async throws -> HTTPResponse {
        let (team, actor) = (try teamKey(context), try context.actor)
        // Outsiders learn nothing (404) and viewers are refused (403) before the body is looked
        // at, or its options.
        try await service.requireAccess(.writeTasks, in: team, as: actor)
        let options = try options.get()
        guard context.request.sendsBody(as: ["text/csv", "application/csv", "text/plain", "application/octet-stream"]) else {
            throw ProblemDocument(
                .unsupportedMediaType,
                detail: "an import takes a CSV body (text/csv), not \(context.request.header("content-type")?.lowercased() ?? "")")
        }
        let coding = try context.bodyCoding(accepting: ["gzip", "x-gzip"])
        // Judged before an import slot is taken or a byte of the body read. `/imports` has no
        // GET, so no tag: only `*` matches it.
        return try await creating(context, shown: nil) {
            guard imports.enter() else {
                let detail =
                    "\(imports.limit) imports are running on this server, the most it runs at once (--max-imports); nothing was done: retry after the Retry-After seconds"
                throw ServerProblems.Refusal.retryLater(ProblemDocument(.unavailable, detail: detail), seconds: 5)
            }
            defer { imports.leave() }
            let rejections = Mutex<[RowRejection]>([])
            do {
                let reader = CSVReader(
                    source: coding == nil ? context.request.bodySource() : try unpacked(context.request), options: options.readerOptions)
                let file = try TaskCSVImport(reader: reader, overrides: options.overrides)
                let report = try await file.run(
                    service: service, settings: options.settings(team: team, actor: actor),
                    onRejection: { rejection in
                        // Kept up to the report's number: a gzipped body of one repeated bad line
                        // refused millions of rows, each kept until memory ran out.
                        rejections.withLock { if $0.count < TaskCSVImport.keptRejections { $0.append(rejection) } }
                    })
                let document = ImportReportDocument(report: report, file: nil, team: team, policy: options.policy, rejectFile: nil)
                return try .json(document)
            } catch let failure as CSVImportFailure {
                return try ImportFailureDocument(failure, rejections: rejections.withLock { $0 }).response
            }
        }
    }

    /// A gzipped CSV body unpacked into a temporary file of its own, before the import reads a
    /// byte of it: at most `--max-import-body` unpacked (413 beyond, however small the gzip), and
    /// not gzip at all is 400.
    func unpacked(_ request: HTTPRequest) throws -> FileByteSource {
        guard let spool = BodySpool() else { throw ServerProblems.cannotSpoolRefusal }
        var appended = true
        func keep(_ piece: UnsafeRawBufferPointer) -> Bool {
            appended = appended && spool.append(piece.baseAddress!, count: piece.count)
            return appended
        }
        var source = request.bodySource()
        do throws(Gzip.InflateError) {
            try Gzip.inflate(from: &source, limit: options.maxImportBytes, into: keep)
        } catch .tooLarge(let limit) {
            throw ProblemDocument(
                .payloadTooLarge, detail: "the CSV body unpacks to more than \(limit) bytes (--max-import-body); split the file")
        } catch .notGzip {
            throw TaskError.validation(field: "body", reason: "the body says Content-Encoding: gzip but is not whole gzip")
        } catch .io(let reason) {
            guard appended else { throw ServerProblems.cannotSpoolRefusal }
            throw TaskError.validation(field: "body", reason: "the gzipped body could not be read: \(reason)")
        }
        return spool.finish().source()
    }

    /// The query's importer options; a parameter the route does not declare
    /// (`RouteQuery.imports`) is refused too, so a misspelt option is never silently ignored.
    func importOptions(_ context: RouteContext) throws -> ImportOptions {
        try context.refuseUndeclaredParameters()
        let request = context.request
        var options: ImportOptions
        do {
            options = try ImportOptions { request.queryValues($0) }
        } catch {
            throw TaskError.validation(field: error.option, reason: error.reason)
        }
        // `Content-Type: text/csv; charset=windows-1252` says how the body is encoded, unless
        // `encoding=` does (a byte-order mark wins over both). One the importer cannot read is
        // refused rather than read as UTF-8 and its accents refused row by row.
        if request.queryValue("encoding") == nil, let charset = request.charset {
            guard let encoding = TextEncoding(argument: charset) else {
                throw ProblemDocument(
                    .unsupportedMediaType,
                    detail:
                        "the body's charset \(charset) is not one the importer reads: utf-8, utf-16, windows-1252 or latin1; convert the file to UTF-8"
                )
            }
            options.encoding = encoding
        }
        return options
    }
}

/// A refused import file as a 422 problem: the problem's members (code `validation`, field
/// `body`) plus where in the file (`line`, `column`, `header`, `character`), the counts so far,
/// and the rows refused before it stopped. Nothing was written.
struct ImportFailureDocument: Encodable {
    let problem: ProblemDocument
    let failure: CSVImportFailure
    let rejections: [RowRejection]

    init(_ failure: CSVImportFailure, rejections: [RowRejection]) {
        self.failure = failure
        self.rejections = rejections
        problem = ProblemDocument(
            .validation, detail: "the CSV body was refused, nothing was imported: \(failure.description)", field: "body",
            reason: failure.description)
    }

    enum Keys: String, CodingKey {
        case line, column, header, character, read, rejected, rejections
    }

    func encode(to encoder: any Encoder) throws {
        try problem.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        let place = failure.place
        try container.encodeIfPresent(place.line, forKey: .line)
        try container.encodeIfPresent(place.column, forKey: .column)
        try container.encodeIfPresent(place.header, forKey: .header)
        try container.encodeIfPresent(place.character, forKey: .character)
        try container.encode(failure.rowsSoFar.read, forKey: .read)
        try container.encode(failure.rowsSoFar.rejected, forKey: .rejected)
        try container.encode(rejections.map(ImportReportDocument.Rejection.init), forKey: .rejections)
    }

    var response: HTTPResponse {
        get throws { try .json(self, status: problem.status, contentType: ServerProblems.contentType) }
    }
}
