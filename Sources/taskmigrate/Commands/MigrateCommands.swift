import CommandLineToolkit
import Foundation
import Migrations
import PGStore
import SafeText

/// What each taskmigrate command does: read its values, call the Migrations module, print.
/// Data goes to stdout; progress and errors to stderr.
enum MigrateCommands {
    private static let printer = ErrorPrinter(program: "taskmigrate")

    static func status(_ values: ParsedValues) async throws {
        try await reportingFailures {
            let runner = try runner(values)
            let plan = try await runner.plan()
            let invalid = try await runner.invalidIndexes()
            try await warnOfRuntimeLoginDefaults(runner)
            if values.flag("json") {
                try StandardStream.standardOutput.write(try StatusDocument(plan: plan, invalidIndexes: invalid).encoded())
                return
            }
            var table = TextTable(columns: [.init("VERSION", alignment: .right), .init("NAME"), .init("STATE"), .init("APPLIED AT")])
            for entry in plan.entries {
                let applied = entry.record.map { $0.appliedAt.formatted(.iso8601) + ($0.isBaseline ? " (baseline)" : "") } ?? "-"
                table.append([String(entry.version), entry.name, entry.state.rawValue, applied])
            }
            let drift = plan.entries.filter(\.state.isDrift).count
            try write(
                table.render() + "\(plan.applied.count) applied, \(plan.pending.count) pending"
                    + (plan.ahead.isEmpty ? "" : ", \(plan.ahead.count) newer than this folder (a newer release's)")
                    + (drift > 0 ? ", \(drift) drifted (run taskmigrate verify)" : "") + "\n"
                    + invalid.map { "INVALID index \($0): left by a failed or killed concurrent build; it serves no query\n" }.joined())
        }
    }

    static func up(_ values: ParsedValues) async throws {
        try await reportingFailures {
            let runner = try runner(values, allowNewer: values.flag("allow-newer"))
            let target = values.int("to").map(Int64.init)
            if values.flag("dry-run") {
                let files = try await runner.pending(upTo: target)
                for file in files {
                    try write(
                        "would apply \(file.fileName) (\(file.runsInTransaction ? "in a transaction" : "no transaction"), \(Counted.phrase(file.up.count, "statement")))\n"
                    )
                }
                if files.isEmpty { try write("up to date: nothing to apply\n") }
                return
            }
            let applied = try await runner.up(to: target)
            for file in applied { try write("applied \(file.fileName)\n") }
            let plan = try await runner.plan()
            let current = plan.currentVersion.map(String.init) ?? "none"
            if let newest = plan.ahead.last, applied.isEmpty {
                // A newer release applied these, and its programs were rolled back: nothing to do.
                try write(
                    "up to date at version \(current): \(Counted.phrase(plan.ahead.count, "applied migration")) up to \(newest.version) "
                        + "\(plan.ahead.count == 1 ? "is" : "are") newer than this folder (a newer release's); left as they are\n")
                return
            }
            try write(applied.isEmpty ? "up to date at version \(current)\n" : "now at version \(current)\n")
            try await warnOfRuntimeLoginDefaults(runner)
        }
    }

    /// A warning on stderr for each runtime login carrying session defaults (`status`, `up`):
    /// the deploy step sees what a stolen login left behind, which a new password does not end.
    private static func warnOfRuntimeLoginDefaults(_ runner: MigrationRunner) async throws {
        for login in try await runner.runtimeLoginDefaults() {
            try StandardStream.standardError.write(
                "taskmigrate: warning: \(TerminalText.clean(login.warning)) as a superuser or a role with CREATEROLE, and restart the servers "
                    + "(docs/operations.md, \"If the runtime login leaked\")\n")
        }
    }

    static func down(_ values: ParsedValues) async throws {
        try await reportingFailures {
            let target = values.int("to").map(Int64.init)
            let rolledBack = try await runner(values).down(to: target) { files in
                try DownConfirmation.confirm(files, toZero: target == 0, yes: values.flag("yes"))
            }
            for file in rolledBack { try write("rolled back \(file.fileName)\n") }
            if rolledBack.isEmpty { try write("nothing to roll back\n") }
        }
    }

    static func verify(_ values: ParsedValues) async throws {
        try await reportingFailures {
            let runner = try runner(values)
            let plan = try await runner.plan()
            let invalid = try await runner.invalidIndexes()
            if values.flag("json") { try StandardStream.standardOutput.write(try VerifyDocument(plan: plan, invalidIndexes: invalid).encoded()) }
            try plan.verify()
            guard invalid.isEmpty else {
                throw CommandFailure(
                    "INVALID index\(invalid.count == 1 ? "" : "es") \(invalid.map(\.description).joined(separator: ", ")): left by a failed or killed "
                        + "CREATE INDEX CONCURRENTLY; run taskmigrate up to rebuild it, or drop it with DROP INDEX CONCURRENTLY",
                    exitCode: .inputRejected)
            }
            if !values.flag("json") { try write("verified: \(plan.applied.count) applied and unchanged, \(plan.pending.count) pending\n") }
        }
    }

    static func plan(_ values: ParsedValues) async throws {
        try await reportingFailures {
            let runner = try runner(values)
            let files = try await runner.pending(upTo: values.int("to").map(Int64.init))
            if files.isEmpty { try write("-- nothing pending\n") }
            let timeouts =
                "lock_timeout \(runner.settings.lockTimeout.displayText), statement_timeout \(runner.settings.statementTimeout.displayText)"
            for file in files {
                try write("-- \(file.fileName): \(file.runsInTransaction ? "one transaction with its history row" : "no transaction"); \(timeouts)\n")
                try write(file.up.map { $0.text + "\n" }.joined() + "\n")
            }
        }
    }

    static func new(_ values: ParsedValues) async throws {
        try await reportingFailures {
            try write(try directory(values).create(name: values.requiredString("name")) + "\n")
        }
    }

    static func lint(_ values: ParsedValues) async throws {
        try await reportingFailures {
            if let name = values.string("explain") {
                guard let rule = LintRule(rawValue: name) else {
                    throw UsageError("unknown rule '\(name)'; the rules are: \(LintRule.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                try write(rule.explanation)
                return
            }
            let target = try LintTarget(directory: directory(values), paths: values.strings("files"))
            let facts = await lintDatabaseFacts(values)
            let findings = target.lint(database: facts)
            let document = LintDocument(files: target.fileCount, findings: findings, errors: target.errors)
            if values.flag("json") {
                try JSONOutput.write(document)
            } else {
                // One line each, from the files' text (a quoted name may hold anything): escaped
                // as every human line is; --json keeps it exact.
                for error in target.errors {
                    try write(
                        TerminalText.clean("\(error.path):\(error.line.map { "\($0):1:" } ?? "") \(LintDocument.invalidFileRule): \(error.message)")
                            + "\n")
                }
                for finding in findings { try write(TerminalText.clean(finding.description) + "\n") }
            }
            let allowed = findings.filter(\.isAllowed).count
            let unreadable = target.errors.isEmpty ? "" : ", \(target.errors.count) could not be read"
            let summary =
                "\(Counted.phrase(document.files, "file"))\(unreadable), \(Counted.phrase(document.refused, "hazard")) not allowed, \(allowed) allowed"
            guard document.refused == 0 else { throw CommandFailure("lint: " + summary, exitCode: .inputRejected) }
            try StandardStream.standardError.write("taskmigrate: lint: \(summary)\n")
        }
    }

    /// What the configured database proves (columns already NOT NULL), when DATABASE_URL is set
    /// and --offline is not; a database that cannot be reached is noted and lint goes on without it.
    private static func lintDatabaseFacts(_ values: ParsedValues) async -> LintDatabaseFacts {
        let url =
            ProcessInfo.processInfo.environment["DATABASE_URL"]
            ?? DotEnv.load(path: FileManager.default.currentDirectoryPath + "/.env")["DATABASE_URL"]
        guard !values.flag("offline"), let url, !url.isEmpty else { return LintDatabaseFacts() }
        do {
            var config = try PGConfig.fromEnvironment()
            if config["connect_timeout"] == nil { config["connect_timeout"] = "5" }
            return try await PGConnection.with(config) { try await LintDatabaseFacts.read(on: $0) }
        } catch {
            printer.warning("lint: not using the database (\(FailureReport(error).summary)); checks are known only from the files")
            return LintDatabaseFacts()
        }
    }

    static func baseline(_ values: ParsedValues) async throws {
        try await reportingFailures {
            guard let version = values.int("version"), version > 0 else { throw UsageError("the version must be a positive number") }
            for file in try await runner(values).baseline(Int64(version)) {
                try write("recorded \(file.fileName) as applied (baseline, not run)\n")
            }
        }
    }

    private static func directory(_ values: ParsedValues) -> MigrationDirectory {
        MigrationDirectory(path: values.string("dir") ?? "migrations")
    }

    private static func runner(_ values: ParsedValues, allowNewer: Bool = false) throws -> MigrationRunner {
        var settings = MigrationSettings()
        settings.allowNewer = allowNewer
        if let text = values.string("lock-timeout") { settings.lockTimeout = try DurationText.parse(text, option: values.source(of: "lock-timeout")) }
        if let text = values.string("statement-timeout") {
            settings.statementTimeout = try DurationText.parse(text, option: values.source(of: "statement-timeout"))
        }
        if let text = values.string("lock-wait") {
            settings.migrationLockWait = try DurationText.parse(text, option: values.source(of: "lock-wait"), isLimit: false)
        }
        if let retries = values.int("lock-retries") {
            guard retries >= 0 else { throw UsageError("invalid value '\(retries)' for '--lock-retries': expected 0 or more") }
            settings.lockRetries = retries
        }
        return MigrationRunner(
            directory: directory(values), config: try PGConfig.fromEnvironment(notice: ErrorPrinter.forThisProgram.note), settings: settings,
            onEvent: report)
    }

    /// Progress on stderr: waits and retries always (they explain a pause), each migration's
    /// start only on a terminal.
    private static func report(_ event: MigrationEvent) {
        let line: String?
        switch event {
        case .waitingForMigrationLock(let holder):
            line = "waiting for the migration lock\(holder.map { ", held by \($0)" } ?? "") ..."
        case let .retrying(file, attempt, total, delay, blocker):
            line =
                "\(file.fileName): lock timeout (try \(attempt) of \(total + 1))\(blocker.map { "; blocked by \($0)" } ?? ""); retrying in \(delay.displayText)"
        case let .starting(file, direction):
            line = StandardStream.standardError.isTerminal ? "\(direction == .up ? "applying" : "rolling back") \(file.fileName) ..." : nil
        case let .waitingForIndexBuild(file, index, pid):
            line =
                "\(file.fileName): a build of index \(index) is still running in server process \(pid) (from a killed run?); waiting for it to end ..."
        case let .recordedExistingIndex(file, index):
            line =
                "\(file.fileName): index \(index) already exists and is valid (built by an earlier run that did not record it); recorded as applied"
        case .lintWarning(let finding):
            line = "warning: \(finding) (see taskmigrate lint --explain \(finding.rule.rawValue))"
        case let .checksumRecorded(file, previous):
            line =
                "\(file.fileName): recorded checksum \(file.checksum.prefix(12))… in place of \(previous.prefix(12))… (a reviewed comment-only edit)"
        case .migrationLockAcquired, .finished:
            line = nil
        }
        if let line { try? StandardStream.standardError.write("taskmigrate: \(TerminalText.clean(line))\n") }
    }

    private static func write(_ text: String) throws {
        try StandardStream.standardOutput.write(text)
    }

    /// Runs a command's work, turning its failures into detail lines and a `CommandFailure`
    /// with the right exit code; usage errors and Ctrl-C (exit 130) pass through to the runner.
    private static func reportingFailures(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let error as UsageError {
            throw error
        } catch let error as CommandFailure {
            throw error
        } catch let error as CancellationError {
            throw error
        } catch {
            let report = FailureReport(error)
            for line in report.details { printer.error(line) }
            throw CommandFailure(report.summary, exitCode: report.exitCode)
        }
    }
}
