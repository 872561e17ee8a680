/// One migration file, read and parsed: what `up` runs, what `down` runs, how, and the
/// checksum the history keeps.
public struct MigrationFile: Sendable {
    /// The version from the file name; files apply in increasing order.
    public var version: Int64
    /// The snake_case name from the file name.
    public var name: String
    /// The file's name, e.g. `0003_add_task_category.sql`.
    public var fileName: String
    /// Where the file was read from, for messages.
    public var path: String
    /// Lowercase hex SHA-256 of the file's bytes, exactly as stored.
    public var checksum: String
    /// SHA-256 of the file's statements and directives without its comments and spacing: the
    /// same before and after an edit that changed only comments (see `SupersededChecksums`).
    public var statementsFingerprint: String
    /// Earlier checksums of this file that a reviewed comment-only edit superseded: a history
    /// row holding one of them is applied, not changed (`up` re-records it).
    public var supersededChecksums: Set<String> = []
    /// The file's text, for mapping offsets to lines.
    public var source: SourceText
    /// The statements of the `-- migrate:up` section (the whole file when it has no sections).
    public var up: [SQLStatement]
    /// The statements of the `-- migrate:down` section, or nil when the file has none.
    public var down: [SQLStatement]?
    /// False for `-- migrate:no-transaction` files.
    public var runsInTransaction: Bool
    /// Rules this file opts out of with `-- lint:allow RULE`.
    public var allowedLintRules: Set<LintRule>

    /// The 1-based line on which `statement` starts.
    public func line(of statement: SQLStatement) -> Int {
        source.location(ofOffset: statement.offset).line
    }

    /// Where a server error's 1-based character `position` inside `statement` lies in the file.
    public func location(of statement: SQLStatement, position: Int?) -> SourceLocation {
        source.location(ofOffset: statement.offset + max(0, (position ?? 1) - 1))
    }
}
