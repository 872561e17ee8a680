import Foundation
import SafeText

/// Prints one-line diagnostics to standard error as `taskctl: error: what went wrong`.
public struct ErrorPrinter: Sendable {
    /// The program name that starts every line.
    public let program: String
    private let output: @Sendable (String) -> Void

    /// A printer for `program`, writing to standard error unless `output` says otherwise.
    public init(program: String, output: @escaping @Sendable (String) -> Void = { try? StandardStream.standardError.write($0) }) {
        self.program = program
        self.output = output
    }

    /// Prints `program: error: message`.
    public func error(_ message: String) {
        output("\(program): error: \(Self.singleLine(message))\n")
    }

    /// Prints the message of `error` on one line.
    public func error(_ error: any Error) {
        self.error(Self.message(for: error))
    }

    /// Prints `program: warning: message`.
    public func warning(_ message: String) {
        output("\(program): warning: \(Self.singleLine(message))\n")
    }

    /// Prints `program: note: message`: something an operator should know, not a problem.
    public func note(_ message: String) {
        output("\(program): note: \(Self.singleLine(message))\n")
    }

    /// A printer named after the running executable (`taskctl`), for code that serves every program.
    public static var forThisProgram: ErrorPrinter {
        ErrorPrinter(program: URL(fileURLWithPath: CommandLine.arguments.first ?? "taskbase").lastPathComponent)
    }

    /// The human line for an error: its `LocalizedError` description, else its `description`.
    public static func message(for error: any Error) -> String {
        if let localized = error as? LocalizedError, let description = localized.errorDescription {
            return description
        }
        return String(describing: error)
    }

    /// One line, with escape sequences and invisible characters (from a CSV header, a title,
    /// a server message) shown escaped rather than sent to the terminal.
    private static func singleLine(_ message: String) -> String {
        TerminalText.clean(message.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " "))
    }
}
