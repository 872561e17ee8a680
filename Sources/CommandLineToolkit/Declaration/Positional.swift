/// A word on the command line identified by its place, e.g. `TITLE` in `taskctl task add TITLE`.
public struct Positional: Sendable {
    /// How many words the positional takes.
    public enum Arity: Sendable, Equatable {
        /// Exactly one word, which must be present.
        case required
        /// One word, which may be absent.
        case optional
        /// Every remaining word, possibly none.
        case zeroOrMore
        /// Every remaining word, at least one.
        case oneOrMore
    }

    /// The key for `ParsedValues` getters.
    public var name: String
    /// How the positional is shown in usage and help, e.g. `KEY-N`.
    public var valueName: String
    /// How many words it takes.
    public var arity: Arity
    /// What each word must look like.
    public var type: ValueType
    /// One or two sentences for the help's argument list.
    public var help: String

    /// Declares a positional; `valueName` defaults to the upper-cased name.
    public init(_ name: String, valueName: String? = nil, arity: Arity = .required, type: ValueType = .string, help: String) {
        self.name = name
        self.valueName = valueName ?? Option.defaultValueName(for: name)
        self.arity = arity
        self.type = type
        self.help = help
    }
}
