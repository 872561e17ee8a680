/// A named option that takes a value: `--team CORE`, `--team=CORE` or `-t CORE`.
public struct Option: Sendable {
    /// The long name without dashes, and the key for `ParsedValues` getters.
    public var name: String
    /// An optional one-letter alias, used as `-t VALUE` or `-tVALUE`.
    public var short: Character?
    /// How the value is shown in usage and help, e.g. `EMAIL`.
    public var valueName: String
    /// One or two sentences for the help's option list.
    public var help: String
    /// What the value must look like.
    public var type: ValueType
    /// The value used when neither the command line nor the environment gives one.
    public var defaultValue: String?
    /// An environment variable consulted when the option is absent, e.g. `TASKBASE_ACTOR`.
    public var environmentVariable: String?
    /// Whether the command refuses to run without a value.
    public var isRequired: Bool
    /// Whether the option may be given several times (`--map A=B --map C=D`).
    public var isRepeatable: Bool

    /// Declares an option; `valueName` defaults to the upper-cased name.
    public init(
        _ name: String,
        short: Character? = nil,
        valueName: String? = nil,
        help: String,
        type: ValueType = .string,
        default defaultValue: String? = nil,
        environment environmentVariable: String? = nil,
        isRequired: Bool = false,
        isRepeatable: Bool = false
    ) {
        self.name = name
        self.short = short
        self.valueName = valueName ?? Option.defaultValueName(for: name)
        self.help = help
        self.type = type
        self.defaultValue = defaultValue
        self.environmentVariable = environmentVariable
        self.isRequired = isRequired
        self.isRepeatable = isRepeatable
    }

    static func defaultValueName(for name: String) -> String {
        name.uppercased().replacingOccurrences(of: "-", with: "_")
    }
}
