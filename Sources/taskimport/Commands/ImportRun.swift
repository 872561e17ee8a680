import CSVImport
import CommandLineToolkit
import Foundation
import PGStore
import TaskCore
import TaskbaseCommandLine
import TaskStorePG

/// One invocation of taskimport: reads the command line, checks the file's header, connects,
/// imports, and prints the summary. Errors leave as `ImportExitCodes` turns them.
struct ImportRun {
    let values: ParsedValues

    func run() async throws {
        do {
            try await importFile()
        } catch {
            if values.flag("json") {
                try? JSONOutput.write(FailureOutput(error: error, values: values).document)
            }
            throw error
        }
    }

    private func importFile() async throws {
        let team = try teamKey()
        let actor = try self.actor()
        let settings = TaskCSVImport.Settings(
            team: team, actor: actor, policy: values.value("on-conflict", as: ImportConflictPolicy.self) ?? .update,
            dryRun: values.flag("dry-run"), maxRejectedRows: try maxErrors())
        let path = values.requiredString("file")
        try InputPaths.checkInput(path)
        try InputPaths.checkRejectFile(values.string("reject-file"), input: path)
        let file = try TaskCSVImport(reader: try reader(path: path), overrides: try overrides())
        let printer = ErrorPrinter(program: "taskimport")
        if let warning = file.mapping.unmappedColumnsWarning { printer.warning(warning) }

        let rejects = try RejectionOutput(
            path: values.string("reject-file"), header: file.mapping.header, delimiter: file.format?.delimiter ?? .comma,
            shownLimit: settings.maxRejectedRows, printer: printer)
        let service = try await openService()
        let progress = ProgressReporter.onStandardError(disabled: values.flag("no-progress"))
        let report: ImportReport
        do {
            report = try await file.run(
                service: service, settings: settings, onRejection: { try rejects.record($0) },
                onProgress: { progress.update(count: $0.rowsRead, fraction: $0.fraction) })
        } catch {
            progress.finish()
            try rejects.close()
            throw error
        }
        progress.finish()
        try rejects.close()
        let output = SummaryOutput(report: report, file: path, team: team, policy: settings.policy, rejectFile: rejects.path)
        if values.flag("json") {
            try JSONOutput.write(output.document)
        } else {
            try StandardStream.standardError.write(output.text)
        }
    }

    private func teamKey() throws -> TeamKey {
        do {
            return try TeamKey(values.requiredString("team"))
        } catch {
            throw UsageError("--team: \(error)")
        }
    }

    private func actor() throws(UsageError) -> UserRef {
        guard let actor = ActingUser.named(in: values) else {
            throw UsageError("an import acts as a user: pass --as EMAIL or set TASKBASE_ACTOR")
        }
        return actor
    }

    private func maxErrors() throws(UsageError) -> Int {
        let count = values.int("max-errors") ?? 0
        guard count >= 0 else { throw UsageError("--max-errors: expected 0 or more, got \(count)") }
        return count
    }

    /// `--delimiter`: a separator, or nil for auto (counted on the header line).
    private func delimiter() throws(UsageError) -> CSVDelimiter? {
        let text = values.requiredString("delimiter")
        if text.lowercased() == "auto" { return nil }
        guard let delimiter = CSVDelimiter(argument: text) else {
            throw UsageError("--delimiter: expected one of , ; tab | (or comma, semicolon, pipe), or auto, got \"\(text)\"")
        }
        return delimiter
    }

    private func encoding() throws(UsageError) -> TextEncoding {
        let text = values.requiredString("encoding")
        guard let encoding = TextEncoding(argument: text) else {
            throw UsageError("--encoding: expected utf-8, utf-16, windows-1252 or latin1, got \"\(text)\"")
        }
        return encoding
    }

    private func maxFieldSize() throws(UsageError) -> Int {
        let size = values.int("max-field-size") ?? CSVReader.Options.defaultMaxFieldBytes
        guard size > 0 else { throw UsageError("--max-field-size: expected a number of bytes above 0, got \(size)") }
        return size
    }

    private func overrides() throws(UsageError) -> [ColumnOverride] {
        var overrides: [ColumnOverride] = []
        for argument in values.strings("map") {
            do {
                overrides.append(try ColumnOverride(argument: argument))
            } catch {
                throw UsageError(error.description)
            }
        }
        return overrides
    }

    private func reader(path: String) throws -> CSVReader {
        let delimiter = try delimiter()
        let options = CSVReader.Options(
            delimiter: delimiter ?? .comma, detectsDelimiter: delimiter == nil, encoding: try encoding(),
            maxFieldBytes: try maxFieldSize(), skipsEmptyRecords: true)
        if path == "-" { return CSVReader.standardInput(options: options) }
        do {
            return try CSVReader(path: path, options: options)
        } catch {
            throw CommandFailure("\(error.description); check the path", exitCode: .usage)
        }
    }

    /// The Postgres-backed service; any failure to get there is exit 3.
    private func openService() async throws -> TaskService {
        try await ServiceConnection.open(maxConnections: 2, limits: try SessionLimitOptions.limits(from: values))
    }
}
