/// What a command line asks for once parsed.
public enum ParseOutcome: Sendable {
    /// Run `command` with `values`.
    case run(Command, ParsedValues)
    /// Show the help of the last command in the chain (root first).
    case help([Command])
    /// Print the root's version.
    case version(String)
}
