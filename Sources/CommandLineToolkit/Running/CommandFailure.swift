/// A failure decided at the command-line edge itself, with its message and exit code.
public struct CommandFailure: Error, Sendable, Equatable, CustomStringConvertible, ExitCodeProviding {
    /// The one line printed after `program: error:`.
    public var message: String
    /// The code the program exits with.
    public var exitCode: ExitCode

    /// A failure with `message`, exiting with `exitCode` (1 unless said otherwise).
    public init(_ message: String, exitCode: ExitCode = .failure) {
        self.message = message
        self.exitCode = exitCode
    }

    /// The message.
    public var description: String { message }
}
