/// Finds lock and rewrite hazards in a migration's up section, the way squawk does, but with
/// only a tokenizer: each rule matches the shape of a statement, not a full parse tree.
///
/// Tables created earlier in the same file are new and empty, so statements on them are not
/// flagged. The down section is not linted: rolling back is a deliberate, destructive act.
public struct MigrationLinter: Sendable {
    /// A linter with every rule on.
    public init() {}

    /// Every hazard in `file`, in file order, each marked allowed or not.
    public func lint(_ file: MigrationFile) -> [LintFinding] {
        var findings: [LintFinding] = []
        var createdTables: Set<String> = []
        func report(_ rule: LintRule, _ token: SQLToken, _ reason: String) {
            findings.append(
                LintFinding(
                    rule: rule, path: file.path, line: file.source.location(ofOffset: token.offset).line,
                    reason: reason, isAllowed: file.allowedLintRules.contains(rule)))
        }

        for statement in file.up {
            let words = StatementShape(statement.codeTokens)
            guard let first = words.tokens.first else { continue }
            if let table = words.createdTable() { createdTables.insert(table) }
            lintIndexes(words, first: first, in: file, createdTables: createdTables, report: report)
            lintAlterTable(words, createdTables: createdTables, report: report)
            if words.matches(["DROP", "TABLE"]) {
                report(
                    .dropTable, first,
                    "DROP TABLE breaks every deployed program that still uses the table and loses its rows; stop using it first, drop it in a later release"
                )
            }
            if words.matches(["SET"]), let setting = words.setTimeoutToZero() {
                report(
                    .timeoutDisabled, first,
                    "SET \(setting) = 0 switches off the runner's protection against waiting on locks; leave the timeouts to --lock-timeout/--statement-timeout"
                )
            }
        }
        if !file.runsInTransaction, file.up.count > 1, let second = file.up[1].codeTokens.first {
            report(
                .noTransactionMultipleStatements, second,
                "a -- migrate:no-transaction file runs outside a transaction, so with \(file.up.count) statements a failure leaves it half applied; put one statement per file"
            )
        }
        return findings
    }

    private func lintIndexes(
        _ words: StatementShape, first: SQLToken, in file: MigrationFile, createdTables: Set<String>, report: (LintRule, SQLToken, String) -> Void
    ) {
        let concurrently = words.tokens.first { $0.isKeyword("CONCURRENTLY") }
        let isIndexStatement = words.matches(["CREATE", "INDEX"]) || words.matches(["CREATE", "UNIQUE", "INDEX"])
        if let concurrently, file.runsInTransaction, isIndexStatement || words.matches(["DROP", "INDEX"]) || words.matches(["REINDEX"]) {
            report(
                .concurrentlyInTransaction, concurrently,
                "CONCURRENTLY cannot run inside a transaction; put this statement alone in a file marked -- migrate:no-transaction")
        }
        guard isIndexStatement, concurrently == nil, let table = words.indexedTable(), !createdTables.contains(table) else { return }
        report(
            .createIndexNotConcurrently, first,
            "CREATE INDEX on existing table \(table) blocks its writes until the index is built; use CREATE INDEX CONCURRENTLY in a -- migrate:no-transaction file"
        )
    }

    private func lintAlterTable(_ words: StatementShape, createdTables: Set<String>, report: (LintRule, SQLToken, String) -> Void) {
        guard let (table, actions) = words.alterTableActions(), !createdTables.contains(table) else { return }
        for action in actions {
            guard let head = action.tokens.first else { continue }
            if head.isKeyword("ADD") {
                lintAdd(action, table: table, report: report)
            } else if head.isKeyword("ALTER") {
                if action.containsSequence(["TYPE"]) {
                    report(
                        .alterColumnType, head,
                        "ALTER COLUMN ... TYPE on \(table) usually rewrites the table and its indexes under ACCESS EXCLUSIVE; add a new column, backfill, and switch over"
                    )
                }
                if action.containsSequence(["SET", "NOT", "NULL"]) {
                    report(
                        .setNotNull, head,
                        "SET NOT NULL scans all of \(table) under ACCESS EXCLUSIVE; first ADD CONSTRAINT ... CHECK (col IS NOT NULL) NOT VALID, VALIDATE it, then SET NOT NULL"
                    )
                }
            } else if head.isKeyword("DROP"), !action.matches(["DROP", "CONSTRAINT"]) {
                report(
                    .dropColumn, head,
                    "DROP COLUMN on \(table) breaks every deployed program that still reads the column; stop using it first, drop it in a later release"
                )
            }
        }
    }

    private static let constraintStarts: Set<String> = ["CONSTRAINT", "PRIMARY", "UNIQUE", "CHECK", "FOREIGN", "EXCLUDE"]

    private func lintAdd(_ action: StatementShape, table: String, report: (LintRule, SQLToken, String) -> Void) {
        let head = action.tokens[0]
        let second = action.tokens.dropFirst().first.map { $0.text.uppercased() } ?? ""
        let notValid = action.containsSequence(["NOT", "VALID"])
        if Self.constraintStarts.contains(second) {
            let buildsIndex = action.containsSequence(["UNIQUE"]) || action.containsSequence(["PRIMARY", "KEY"])
            if buildsIndex, !action.containsSequence(["USING", "INDEX"]) {
                report(
                    .createIndexNotConcurrently, head,
                    "ADD UNIQUE or PRIMARY KEY builds its index on \(table) while holding ACCESS EXCLUSIVE; CREATE UNIQUE INDEX CONCURRENTLY first, then ADD CONSTRAINT ... USING INDEX"
                )
            }
            let checksRows = action.containsSequence(["FOREIGN", "KEY"]) || action.containsSequence(["CHECK"])
            if checksRows, !notValid {
                report(
                    .constraintWithoutNotValid, head,
                    "adding a FOREIGN KEY or CHECK to \(table) scans every row while holding its lock; add it NOT VALID, then VALIDATE CONSTRAINT in a later migration"
                )
            }
            return
        }
        let hasDefault = action.containsSequence(["DEFAULT"])
        if action.containsSequence(["NOT", "NULL"]), !hasDefault, !action.containsSequence(["GENERATED"]) {
            report(
                .addColumnNotNullWithoutDefault, head,
                "ADD COLUMN ... NOT NULL without DEFAULT fails as soon as \(table) has rows; add it nullable (or with a constant default), backfill, then constrain"
            )
        }
        if let volatile = action.volatileValueSource() {
            report(
                .volatileDefault, head,
                "ADD COLUMN with \(volatile) fills every existing row, rewriting \(table) under ACCESS EXCLUSIVE; add the column without it, then backfill in batches"
            )
        }
        if action.containsSequence(["REFERENCES"]) {
            report(
                .constraintWithoutNotValid, head,
                "ADD COLUMN ... REFERENCES locks \(table) and the referenced table while it validates; add the column, then ADD CONSTRAINT ... FOREIGN KEY ... NOT VALID"
            )
        }
    }
}
