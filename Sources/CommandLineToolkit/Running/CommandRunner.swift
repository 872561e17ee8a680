import Foundation

/// Runs a program: parses its arguments, runs the selected command, prints help, version, usage
/// errors and failures, and turns the outcome into an exit code.
///
/// ```swift
/// @main enum TaskCtl {
///     static func main() async { await CommandRunner.main { TaskCtlCommands.root } }
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

    /// Runs the program whose command tree `root` builds with the process's arguments and exits
    /// with the resulting code; a program's `main` calls it first thing.
    ///
    /// Before anything else (the tree is built after) it takes SIGINT, SIGTERM and SIGHUP over,
    /// with a signal the program's early handlers (CStopSignalsAtStart, linked into every
    /// program) recorded while it started: a signal cancels the command, as `run(_:)` describes,
    /// and one that comes before the command has begun keeps it from beginning (the same exit
    /// code, a line saying nothing was done); none kills the program the default way.
    public static func main(_ root: @Sendable () -> Command) async -> Never {
        let watcher = InterruptWatcher()
        let runner = CommandRunner(root: root())
        if let position = Self.firstInvalidUTF8Argument() {
            // CommandLine.arguments would have turned the bytes into U+FFFD without a word.
            let refusal = UsageError("argument \(position) is not valid UTF-8; pass text in UTF-8 (check the terminal's or the script's encoding)")
            runner.printUsageFailureDocument(refusal, arguments: Array(CommandLine.arguments.dropFirst()))
            ErrorPrinter(program: runner.root.name, output: runner.standardError).error(refusal.message)
            exit(ExitCode.usage.rawValue)
        }
        let code = await runner.run(Array(CommandLine.arguments.dropFirst()), interrupts: watcher)
        exit(code.rawValue)
    }

    /// Stops the running command as a SIGTERM would, for a process told to stop by other means
    /// (a supervisor's pipe closing), except that it never counts as a second signal: a real
    /// signal before or after it stops the command once, and only a second real signal exits at
    /// once. Does nothing in a process `main` did not start.
    public static func requestStop() {
        InterruptWatcher.requestStop()
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

    /// Runs with `arguments` (program name excluded) and returns the exit code; signals are not
    /// watched (`main(_:)` watches them).
    public func run(_ arguments: [String]) async -> ExitCode {
        await run(arguments, interrupts: nil)
    }

    /// `run(_:)`, Ctrl-C, SIGTERM and SIGHUP (seen by `watcher`) cancelling the command's task: a
    /// command that returns normally on cancellation (such as a live watch) exits 0, one that
    /// throws exits 128 + the signal number (130, 143, 129) with one line saying it was
    /// interrupted, and a second signal exits so at once. A command a signal stopped before it
    /// began is not begun: it exits 128 + the signal number, saying nothing was done. A command
    /// declared `exitsZeroWhenStopped` exits 0 without a word in either case.
    func run(_ arguments: [String], interrupts watcher: InterruptWatcher?) async -> ExitCode {
        assert(root.declarationProblems().isEmpty, root.declarationProblems().joined(separator: "\n"))
        let printer = ErrorPrinter(program: root.name, output: standardError)
        let outcome: ParseOutcome
        do {
            outcome = try CommandParser(root: root, environment: environment).parse(arguments)
        } catch {
            printUsageFailureDocument(error, arguments: arguments)
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
            if let number = watcher?.receivedSignal {
                return Self.stopped(command, values, by: number, error: nil, printer: printer)
            }
            let task = Task { try await InterruptWatcher.$current.withValue(watcher) { try await action(values) } }
            watcher?.watch(task)
            do {
                try await task.value
                return .success
            } catch  where watcher?.receivedSignal != nil {
                // Stopped on purpose: whatever the cancelled work threw (a CancellationError, the
                // server's "canceling statement due to user request"), say so, not "failed".
                return Self.stopped(command, values, by: watcher?.receivedSignal ?? SIGINT, error: error, printer: printer)
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

    /// The exit code of `command`, run with `values`, stopped by signal `number`, having thrown
    /// `error` (nil: stopped before it began), after its line on stderr.
    private static func stopped(_ command: Command, _ values: ParsedValues, by number: Int32, error: (any Error)?, printer: ErrorPrinter) -> ExitCode
    {
        if command.exitsZeroWhenStopped(values) { return .success }
        printer.error(stoppedMessage(error, signal: number))
        return .stopped(by: number)
    }

    /// The line for a command stopped by `signal`: the command's own words when it said what
    /// stopping meant (taskimport: "nothing was imported"), else what the runner knows; `error`
    /// is nil for a command stopped before it began.
    static func stoppedMessage(_ error: (any Error)?, signal: Int32) -> String {
        let name = ExitCode.signalName(signal)
        guard let error else { return "interrupted by \(name) before it began: nothing was done" }
        if let failure = error as? CommandFailure, failure.exitCode == .interrupted {
            return "\(failure.message) (\(name))"
        }
        // Not the database's answer to a cancelled statement (that is its own error): stopped
        // while connecting, waiting for a pooled connection, between statements, or mid-COPY
        // (cancelled first). There may have been no statement, so none is named.
        if error is CancellationError {
            return "interrupted by \(name): what it was doing was stopped, and any open transaction rolled back"
        }
        return "interrupted by \(name): the running statement was cancelled and its transaction rolled back"
    }

    /// On standard output, the document the `usageFailureDocument` nearest to the command the
    /// words select gives for refused `arguments`, if any.
    func printUsageFailureDocument(_ error: UsageError, arguments: [String]) {
        let values = CommandParser(root: root, environment: environment).readableValues(arguments)
        let chain = root.resolve(values.commandPath) ?? [root]
        guard let document = chain.reversed().lazy.compactMap(\.usageFailureDocument).first,
            let value = document(error, values), let text = try? JSONOutput.encode(value)
        else { return }
        standardOutput(text)
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
