import Foundation
import Migrations
import PGStore

/// The taskmigrate program: parses the command line, calls the Migrations module, prints.
/// Data goes to stdout; errors and progress to stderr.
enum TaskMigrate {
    /// The options each command takes besides the global ones.
    private static let commandOptions: [String: (values: Set<String>, flags: Set<String>)] = [
        "status": ([], ["json"]),
        "up": (["to"], ["dry-run"]),
        "down": (["to"], []),
        "verify": ([], []),
        "plan": (["to"], []),
        "new": ([], []),
        "lint": ([], []),
        "baseline": ([], []),
    ]

    /// Runs the command line and returns the exit code.
    static func run(_ arguments: [String]) async -> Int32 {
        let command = arguments.first { !$0.hasPrefix("-") } ?? ""
        do {
            let options = commandOptions[command] ?? ([], [])
            let parsed = try CommandLineArguments.parse(arguments, valueOptions: options.values, flags: options.flags)
            if parsed.flags.contains("version") {
                print("taskmigrate \(MigrationTool.version)")
                return ExitCode.ok.rawValue
            }
            guard let name = parsed.command else {
                print(HelpText.overview)
                return parsed.flags.contains("help") ? ExitCode.ok.rawValue : ExitCode.usage.rawValue
            }
            guard let help = HelpText.forCommand(name) else { throw UsageError("unknown command \"\(name)\"") }
            if parsed.flags.contains("help") {
                print(help)
                return ExitCode.ok.rawValue
            }
            return try await dispatch(name, parsed).rawValue
        } catch {
            let report = ErrorReport(error, command: command)
            printError(report.message)
            return report.exitCode.rawValue
        }
    }

    private static func dispatch(_ command: String, _ arguments: CommandLineArguments) async throws -> ExitCode {
        let directory = MigrationDirectory.resolve(flag: arguments.values["dir"])
        switch command {
        case "new":
            print(try directory.create(name: arguments.onlyPositional("NAME")))
            return .ok
        case "lint":
            return lint(arguments.positionals.isEmpty ? try directory.load() : try arguments.positionals.map(MigrationDirectory.load(path:)))
        default:
            break
        }
        let runner = try makeRunner(directory, arguments)
        switch command {
        case "status":
            try arguments.requireNoPositionals()
            return try await status(runner, json: arguments.flags.contains("json"))
        case "up":
            try arguments.requireNoPositionals()
            return try await up(runner, to: arguments.integer("to"), dryRun: arguments.flags.contains("dry-run"))
        case "down":
            try arguments.requireNoPositionals()
            return try await down(runner, to: arguments.integer("to"))
        case "verify":
            try arguments.requireNoPositionals()
            return try await verify(runner)
        case "plan":
            try arguments.requireNoPositionals()
            return try await plan(runner, to: arguments.integer("to"))
        case "baseline":
            guard let version = Int64(try arguments.onlyPositional("version V")), version > 0 else {
                throw UsageError("baseline takes a version number")
            }
            return try await baseline(runner, version: version)
        default:
            throw UsageError("unknown command \"\(command)\"")
        }
    }

    private static func makeRunner(_ directory: MigrationDirectory, _ arguments: CommandLineArguments) throws -> MigrationRunner {
        var settings = MigrationSettings()
        if let value = try arguments.duration("lock-timeout") { settings.lockTimeout = value }
        if let value = try arguments.duration("statement-timeout") { settings.statementTimeout = value }
        if let value = try arguments.duration("lock-wait") { settings.migrationLockWait = value }
        if let value = try arguments.integer("lock-retries") { settings.lockRetries = Int(value) }
        let config = try PGConfig.fromEnvironment()
        return MigrationRunner(directory: directory, config: config, settings: settings, onEvent: report)
    }

    /// Progress: waits and retries always (they explain a pause), per-migration starts only
    /// on a terminal.
    private static func report(_ event: MigrationEvent) {
        switch event {
        case .waitingForMigrationLock(let holder):
            printError("waiting for the migration lock\(holder.map { ", held by \($0)" } ?? "") ...")
        case let .retrying(file, attempt, total, delay, blocker):
            let who = blocker.map { "; blocked by \($0)" } ?? ""
            printError("\(file.fileName): lock timeout (try \(attempt) of \(total + 1))\(who); retrying in \(delay.formatted(.units(allowed: [.seconds, .milliseconds], width: .narrow)))")
        case let .starting(file, direction):
            if isatty(STDERR_FILENO) == 1 { printError("\(direction == .up ? "applying" : "rolling back") \(file.fileName) ...") }
        case .migrationLockAcquired, .finished:
            break
        }
    }

    /// One or more lines on stderr, each prefixed with the program's name.
    static func printError(_ message: String) {
        let text = message.split(separator: "\n", omittingEmptySubsequences: false).map { "taskmigrate: \($0)\n" }.joined()
        FileHandle.standardError.write(Data(text.utf8))
    }
}
