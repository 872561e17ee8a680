/// A boolean switch such as `--json` or `--dry-run`; absent means false.
public struct Flag: Sendable {
    /// The long name without dashes, and the key for `ParsedValues.flag(_:)`.
    public var name: String
    /// An optional one-letter alias; several can be combined, as in `-nq`.
    public var short: Character?
    /// One or two sentences for the help's option list.
    public var help: String

    /// Declares a flag.
    public init(_ name: String, short: Character? = nil, help: String) {
        self.name = name
        self.short = short
        self.help = help
    }
}
