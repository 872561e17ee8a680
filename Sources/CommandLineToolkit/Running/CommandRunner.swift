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
        if let position = Self.firstInvalidUTF8Argument() {
            // CommandLine.arguments would have turned the bytes into U+FFFD without a word.
            ErrorPrinter(program: root.name, output: standardError).error(
                "argument \(position) is not valid UTF-8; pass text in UTF-8 (check the terminal's or the script's encoding)")
            exit(ExitCode.usage.rawValue)
        }
        let code = await run(Array(CommandLine.arguments.dropFirst()), cancelsOnInterrupt: true)
        exit(code.rawValue)
    }

    /// The 1-based position of the first argument whose bytes are not UTF-8, if any.
    static func firstInvalidUTF8Argument() -> Int? {
        let count = Int(CommandLine.argc)
        guard count > 1 else { return nil }
        for index in 1..<count {
            guard let argument = CommandLine.unsafeArgv[index] else { continue }
            if String(validatingCString: argument) == nil { return index }
        }
        return nil
    }

    /// Runs with `arguments` (program name excluded) and returns the exit code.
    ///
    /// With `cancelsOnInterrupt`, Ctrl-C, SIGTERM and SIGHUP cancel the command's task: a command
    /// that returns normally on cancellation (such as a live watch) exits 0, one that throws
    /// exits 128 + the signal number (130, 143, 129) with one line saying it was interrupted,
    /// and a second signal exits so at once.
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
            let task = Task { try await InterruptWatcher.$current.withValue(watcher) { try await action(values) } }
            watcher?.watch(task)
            do {
                try await task.value
                return .success
            } catch  where watcher?.receivedSignal != nil {
                // Stopped on purpose: whatever the cancelled work threw (a CancellationError, the
                // server's "canceling statement due to user request"), say so, not "failed".
                let number = watcher?.receivedSignal ?? SIGINT
                printer.error(Self.stoppedMessage(error, signal: number))
                return .stopped(by: number)
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

    /// The code the running command exits with now that it was stopped: 128 + the signal that
    /// stopped it (130, 143, 129), for a command that reports its own failure before it exits
    /// (`taskimport --json`). `.interrupted` when no signal arrived (a plain cancellation).
    public static var stoppedExitCode: ExitCode {
        InterruptWatcher.current?.receivedSignal.map(ExitCode.stopped(by:)) ?? .interrupted
    }

    /// The line for a command stopped by `signal`: the command's own words when it said what
    /// stopping meant (taskimport: "nothing was imported"), else what the runner knows.
    static func stoppedMessage(_ error: any Error, signal: Int32) -> String {
        let name = ExitCode.signalName(signal)
        if let failure = error as? CommandFailure, failure.exitCode == .interrupted {
            return "\(failure.message) (\(name))"
        }
        return "interrupted by \(name): the running statement was cancelled and its transaction rolled back"
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
