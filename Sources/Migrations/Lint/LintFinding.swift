/// One hazard `lint` found: which rule, where, and why it matters.
public struct LintFinding: Sendable, Equatable, CustomStringConvertible {
    /// The rule that tripped.
    public var rule: LintRule
    /// The file's path.
    public var path: String
    /// The 1-based line of the offending clause.
    public var line: Int
    /// The 1-based column (in Unicode scalars) of the offending clause.
    public var column: Int
    /// One line: what the statement locks or breaks, for how long, and what to do instead.
    public var reason: String
    /// True when the file carries `-- lint:allow` for the rule.
    public var isAllowed: Bool

    /// A finding.
    public init(rule: LintRule, path: String, line: Int, column: Int, reason: String, isAllowed: Bool) {
        self.rule = rule
        self.path = path
        self.line = line
        self.column = column
        self.reason = reason
        self.isAllowed = isAllowed
    }

    /// `path:line:column: rule: reason`, with `(allowed)` when the file opts out.
    public var description: String {
        "\(path):\(line):\(column): \(rule.rawValue): \(reason)\(isAllowed ? " (allowed by -- lint:allow)" : "")"
    }
}
