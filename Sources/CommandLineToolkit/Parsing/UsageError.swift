/// The command line does not match the declarations: exit code 2, printed with the command's usage.
public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// One line saying what is wrong and, where possible, what would be right.
    public var message: String
    /// The subcommand words (root excluded) whose usage to show; nil means the command that was running.
    public var commandPath: [String]?
    /// Whether to print the command's whole help rather than its usage line, e.g. for a missing subcommand.
    public var showsFullHelp: Bool

    /// A usage error; commands' own argument checks can throw it with just a message.
    public init(_ message: String, commandPath: [String]? = nil, showsFullHelp: Bool = false) {
        self.message = message
        self.commandPath = commandPath
        self.showsFullHelp = showsFullHelp
    }

    /// The message.
    public var description: String { message }
}

extension UsageError: ExitCodeProviding {
    /// Always `.usage`.
    public var exitCode: ExitCode { .usage }
}
