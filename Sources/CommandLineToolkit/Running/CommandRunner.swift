import Foundation

/// Runs a program: parses its arguments, runs the selected command, prints help, version, usage
/// errors and failures, and turns the outcome into an exit code.
///
/// ```swift
/// @main enum TaskCtl {
///     static func main() async { await CommandRunner(root: TaskCtlCommands.root).main() }
/// }
/// ```
public struct CommandRunner: Sendable {
    /// The program's command tree.
    public let root: Command
    /// The environment options read their fallbacks from.
    public let environment: [String: String]
    private let standardOutput: @Sendable (String) -> Void
    private let standardError: @Sendable (String) -> Void

    /// A runner for `root`; tests can capture output by passing their own writers.
    public init(
        root: Command,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        standardOutput: @escaping @Sendable (String) -> Void = { try? StandardStream.standardOutput.write($0) },
        standardError: @escaping @Sendable (String) -> Void = { try? StandardStream.standardError.write($0) }
    ) {
        self.root = root
        self.environment = environment
        self.standardOutput = standardOutput
        self.standardError = standardError
    }

    /// Runs with the process's arguments, Ctrl-C cancelling the command, and exits with the resulting code.
    public func main() async -> Never {
        let code = await run(Array(CommandLine.arguments.dropFirst()), cancelsOnInterrupt: true)
        exit(code.rawValue)
    }

    /// Runs with `arguments` (program name excluded) and returns the exit code.
    ///
    /// With `cancelsOnInterrupt`, Ctrl-C cancels the command's task: a command that returns
    /// normally on cancellation (such as a live watch) exits 0, one that throws
    /// `CancellationError` exits 130, and a second Ctrl-C exits 130 at once.
    public func run(_ arguments: [String], cancelsOnInterrupt: Bool = false) async -> ExitCode {
        assert(root.declarationProblems().isEmpty, root.declarationProblems().joined(separator: "\n"))
        let printer = ErrorPrinter(program: root.name, output: standardError)
        let outcome: ParseOutcome
        do {
            outcome = try CommandParser(root: root, environment: environment).parse(arguments)
        } catch {
            reportUsage(error, defaultPath: [], printer: printer)
            return .usage
        }
        switch outcome {
        case .help(let chain):
            standardOutput(HelpFormatter(chain: chain).fullHelp())
            return .success
        case .version(let version):
            standardOutput(version + "\n")
            return .success
        case .run(let command, let values):
            guard let action = command.action else { return .usage }
            let watcher = cancelsOnInterrupt ? InterruptWatcher() : nil
            defer { watcher?.stop() }
            let task = Task { try await action(values) }
            watcher?.watch(task)
            do {
                try await task.value
                return .success
            } catch is CancellationError {
                return .interrupted
            } catch let usage as UsageError {
                reportUsage(usage, defaultPath: values.commandPath, printer: printer)
                return .usage
            } catch {
                printer.error(error)
                return (error as? any ExitCodeProviding)?.exitCode ?? .failure
            }
        }
    }

    private func reportUsage(_ error: UsageError, defaultPath: [String], printer: ErrorPrinter) {
        printer.error(error.message)
        let chain = root.resolve(error.commandPath ?? defaultPath) ?? [root]
        let help = HelpFormatter(chain: chain)
        if error.showsFullHelp {
            standardError("\n" + help.fullHelp())
        } else {
            standardError(help.usageLine() + "\n" + help.helpHint() + "\n")
        }
    }
}
