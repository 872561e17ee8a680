/// Finds lock, rewrite, breakage and safety hazards in migrations' up sections, the way squawk
/// does, but with only a tokenizer: each rule matches the shape of a statement, not a full
/// parse tree.
///
/// Files are read in order, and what earlier files (or the database) established counts for
/// later ones: a validated `CHECK (col IS NOT NULL)` makes a later `SET NOT NULL` safe, and a
/// `SECURITY DEFINER` function's unsafe `search_path` is only reported when no later statement
/// of the folder fixes it. Tables created earlier in the same file are new and empty, so lock
/// and breakage rules skip statements on them (type rules do not). The down section is not
/// linted: rolling back is a deliberate, destructive act.
public struct MigrationLinter: Sendable {
    /// A linter with every rule on.
    public init() {}

    /// Every hazard in `file` on its own, in file order, each marked allowed or not.
    public func lint(_ file: MigrationFile) -> [LintFinding] {
        lint([file])
    }

    /// Every hazard in `files`, read in the given (version) order as one history that starts
    /// from `database`: findings grouped by file in that order, each file's in line order.
    public func lint(_ files: [MigrationFile], database: LintDatabaseFacts = LintDatabaseFacts()) -> [LintFinding] {
        var pass = LintPass(database: database)
        for file in files { pass.lint(file) }
        return pass.finish(order: files.map(\.path))
    }
}
