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
        let options = try importOptions()
        let settings = options.settings(team: team, actor: actor)
        let path = values.requiredString("file")
        try InputPaths.checkInput(path)
        try InputPaths.checkRejectFile(values.string("reject-file"), input: path)
        let file = try TaskCSVImport(reader: try reader(path: path, options: options.readerOptions), overrides: options.overrides)
        let printer = ErrorPrinter(program: "taskimport")
        if let warning = file.mapping.unmappedColumnsWarning { printer.warning(warning) }

        let rejects = try RejectionOutput(
            path: values.string("reject-file"), header: file.mapping.header, delimiter: file.format?.delimiter ?? .comma,
            byteOrderMark: file.format?.byteOrderMark ?? false, shownLimit: settings.maxRejectedRows, printer: printer)
        let service = try await openService()
        let progress = ProgressReporter.onStandardError(disabled: values.flag("no-progress"))
        let report: ImportReport
        do {
            report = try await file.run(
                service: service, settings: settings, onRejection: { try rejects.record($0) },
                onProgress: { progress.update(count: $0.rowsRead, fraction: $0.fraction) })
        } catch {
            progress.finish()
            // Refused for its rows, the run's reject file is what the operator needs next; any
            // other failure (the database, a signal) leaves the path as it was.
            try rejects.finish(keeping: error is CSVImportFailure && !Task.isCancelled)
            throw error
        }
        progress.finish()
        do {
            try rejects.finish(keeping: true)
            let output = SummaryOutput(report: report, file: path, team: team, policy: settings.policy, rejectFile: rejects.path)
            if values.flag("json") {
                try JSONOutput.write(output.document)
            } else {
                try StandardStream.standardError.write(output.text)
            }
        } catch {
            throw ReportFailure(report: report, underlying: error)
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

    /// The importer's options from the command line, checked as `ImportOptions` checks them.
    private func importOptions() throws(UsageError) -> ImportOptions {
        do {
            return try ImportOptions { name in name == "dry-run" ? (values.flag(name) ? ["true"] : []) : values.strings(name) }
        } catch {
            // A --map error already names its argument.
            throw UsageError(error.option == "map" ? error.reason : "--\(error.option): \(error.reason)")
        }
    }

    private func reader(path: String, options: CSVReader.Options) throws -> CSVReader {
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
