/// One node of a program's command tree: the root program itself or a git-style subcommand.
///
/// The same declaration drives parsing, help and usage lines, so they can never disagree.
public struct Command: Sendable {
    /// What a runnable command does with its parsed values; thrown errors become exit codes.
    public typealias Action = @Sendable (ParsedValues) async throws -> Void

    /// The word that selects this command (for the root: the program's name).
    public var name: String
    /// One line shown in the parent's subcommand list and at the top of this command's help.
    public var abstract: String
    /// Longer help text: when to use the command, examples, caveats.
    public var discussion: String?
    /// The program's version; on the root it enables `--version`.
    public var version: String?
    /// Words after the options, in order (required first, then optional, then at most one variadic).
    public var positionals: [Positional]
    /// `--name VALUE` options; also accepted by every subcommand below this one.
    public var options: [Option]
    /// Boolean `--name` switches; also accepted by every subcommand below this one.
    public var flags: [Flag]
    /// Commands selected by the next word, e.g. `task` under `taskctl`.
    public var subcommands: [Command]
    /// The work to do; nil for a pure grouping command such as `taskctl task`.
    public var action: Action?
    /// Whether SIGINT, SIGTERM or SIGHUP is how this command, run with these values, is meant to
    /// end (a live watch, a server, but not the server's `--check`, whose 0 says "checked"):
    /// stopped by one, at any moment, it exits 0 without a word rather than 128 + the signal
    /// number with "interrupted by ...".
    public var exitsZeroWhenStopped: @Sendable (ParsedValues) -> Bool
    /// For a program that promises a document on standard output for every failure
    /// (`taskimport --json`): the document for a command line the parser refused (or the
    /// runner, for an argument that is not UTF-8, read as U+FFFD here), given the
    /// error and what could still be read of the command line (`CommandParser.readableValues`),
    /// or nil to print none (say, when that command line did not ask for `--json`). The runner
    /// prints it with `JSONOutput`, beside the usual error line and usage hint on stderr; the one
    /// nearest the command the words select (that command, else its parent, ...) is used. A
    /// usage error the action throws is the action's to report.
    public var usageFailureDocument: UsageFailureDocument?

    /// Builds the document of `usageFailureDocument`.
    public typealias UsageFailureDocument = @Sendable (UsageError, ParsedValues) -> (any Encodable)?

    /// Declares a command; `run` is nil for commands that only group subcommands.
    public init(
        _ name: String,
        abstract: String,
        discussion: String? = nil,
        version: String? = nil,
        positionals: [Positional] = [],
        options: [Option] = [],
        flags: [Flag] = [],
        subcommands: [Command] = [],
        exitsZeroWhenStopped: @escaping @Sendable (ParsedValues) -> Bool = { _ in false },
        usageFailureDocument: UsageFailureDocument? = nil,
        run action: Action? = nil
    ) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.version = version
        self.positionals = positionals
        self.options = options
        self.flags = flags
        self.subcommands = subcommands
        self.exitsZeroWhenStopped = exitsZeroWhenStopped
        self.usageFailureDocument = usageFailureDocument
        self.action = action
    }

    /// The chain of commands named by `path` (the root's own name excluded), starting with this one.
    public func resolve(_ path: [String]) -> [Command]? {
        var chain = [self]
        for word in path {
            guard let next = chain[chain.count - 1].subcommands.first(where: { $0.name == word }) else { return nil }
            chain.append(next)
        }
        return chain
    }
}
