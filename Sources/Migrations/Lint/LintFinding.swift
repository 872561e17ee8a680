/// One hazard `lint` found: which rule, where, and why it matters.
public struct LintFinding: Sendable, Equatable, CustomStringConvertible {
    /// The rule that tripped.
    public var rule: LintRule
    /// The file's path.
    public var path: String
    /// The 1-based line of the offending clause.
    public var line: Int
    /// One line: what the statement does and what to do instead.
    public var reason: String
    /// True when the file carries `-- lint:allow` for the rule.
    public var isAllowed: Bool

    /// `path:line: rule: reason`, with `(allowed)` when the file opts out.
    public var description: String {
        "\(path):\(line): \(rule.rawValue): \(reason)\(isAllowed ? " (allowed by -- lint:allow)" : "")"
    }
}
