/// The rules about tables, columns, constraints and indexes, and the NOT NULL proofs that
/// `CREATE TABLE` and `ALTER TABLE` establish for later files.
extension LintPass {
    mutating func learnTable(_ table: String, _ elements: [StatementShape], in context: inout FileContext) {
        for element in elements {
            if element.isConstraintDefinition {
                learnCheck(table: table, element, name: nil, validated: true)
                continue
            }
            guard let column = element.tokens.first?.identifier else { continue }
            lintTypes(element, typeAt: 1, column: column, in: &context)
            if element.containsSequence(["NOT", "NULL"]) || element.containsSequence(["PRIMARY", "KEY"]) {
                notNullColumns.insert(TableColumn(table: table, column: column))
            }
            learnCheck(table: table, element, name: nil, validated: true)
        }
    }

    /// Records the CHECK in `definition` (a constraint element, or a column's inline CHECK).
    private mutating func learnCheck(table: String, _ definition: StatementShape, name: String?, validated: Bool) {
        let columns = definition.notNullCheckColumns()
        guard !columns.isEmpty else { return }
        let named = definition.matches(["CONSTRAINT"]) ? definition.tokens.dropFirst().first?.identifier : nil
        let key = "\(table).\(name ?? named ?? "\(table)_\(columns.sorted()[0])_check")"
        checks[key] = NotNullCheck(table: table, columns: columns, isValidated: validated)
    }

    func lintIndexes(_ words: StatementShape, first: SQLToken, in context: inout FileContext) {
        let concurrently = words.tokens.first { $0.isKeyword("CONCURRENTLY") }
        let isIndexStatement = words.matches(["CREATE", "INDEX"]) || words.matches(["CREATE", "UNIQUE", "INDEX"])
        if isIndexStatement, let on = words.topLevelIndex(of: "ON"), on > 0, let name = words.tokens[on - 1].identifier {
            context.createdIndexes.insert(name)
        }
        let dropsIndex = words.matches(["DROP", "INDEX"])
        if let concurrently, context.file.runsInTransaction, isIndexStatement || dropsIndex || words.matches(["REINDEX"]) {
            context.report(
                .concurrentlyInTransaction, concurrently,
                "CONCURRENTLY cannot run inside a transaction, so the migration fails; put this statement alone in a file marked -- migrate:no-transaction"
            )
        }
        if dropsIndex, concurrently == nil {
            var index = words.skipIfExists(2)
            let names = words.nameList(from: &index)
            if !names.isEmpty, !names.allSatisfy(context.createdIndexes.contains) {
                context.report(
                    .dropIndexNotConcurrently, first,
                    "DROP INDEX \(names.joined(separator: ", ")) takes ACCESS EXCLUSIVE on its table, waiting behind every running query while all new ones queue behind it; use DROP INDEX CONCURRENTLY alone in a -- migrate:no-transaction file"
                )
            }
        }
        guard isIndexStatement, concurrently == nil, let table = words.indexedTable(), !context.createdTables.contains(table) else { return }
        context.report(
            .createIndexNotConcurrently, first,
            "CREATE INDEX on existing table \(table) blocks its writes until the index is built; use CREATE INDEX CONCURRENTLY in a -- migrate:no-transaction file"
        )
    }

    mutating func lintAlterTable(_ words: StatementShape, in context: inout FileContext) {
        guard let (table, actions) = words.alterTableActions() else { return }
        let before = context.findings.count
        for action in actions {
            guard let head = action.tokens.first else { continue }
            if head.isKeyword("ADD") {
                lintAdd(action, table: table, in: &context)
            } else if head.isKeyword("ALTER") {
                lintAlterColumn(action, table: table, in: &context)
            } else if action.matches(["VALIDATE", "CONSTRAINT"]), let name = action.tokens.dropFirst(2).first?.identifier {
                checks["\(table).\(name)"]?.isValidated = true
                if context.file.runsInTransaction, context.addedNotValid.contains("\(table).\(name)") {
                    context.report(
                        .constraintWithoutNotValid, head,
                        "VALIDATE CONSTRAINT \(name) in the transaction that added it NOT VALID scans \(table) while the ADD still holds ACCESS EXCLUSIVE, blocking reads and writes; validate it in a later migration"
                    )
                }
            } else if action.matches(["DROP", "CONSTRAINT"]) {
                var index = action.skipIfExists(2)
                if let name = action.nameList(from: &index).first { checks["\(table).\(name)"] = nil }
            } else if head.isKeyword("DROP") {
                context.report(
                    .dropColumn, head,
                    "DROP COLUMN on \(table) breaks every deployed program that still reads the column; stop using it first, drop it in a later release"
                )
            } else if action.matches(["RENAME", "TO"]) {
                context.report(
                    .renameTable, head,
                    "RENAME TO on \(table) breaks every deployed query that names the table until all programs are redeployed; create the new name (or a view) first, move code over, drop the old later"
                )
            } else if head.isKeyword("RENAME"), !action.matches(["RENAME", "CONSTRAINT"]) {
                context.report(
                    .renameColumn, head,
                    "RENAME COLUMN on \(table) breaks every deployed query that names the column until all programs are redeployed; add the new column, write both, backfill, switch reads, drop the old one later"
                )
            }
        }
        if context.createdTables.contains(table) {
            let mine = context.findings[before...].filter { $0.rule.isTypeChoice }
            context.findings.removeSubrange(before...)
            context.findings += mine
        }
    }

    private mutating func lintAdd(_ action: StatementShape, table: String, in context: inout FileContext) {
        let head = action.tokens[0]
        let body = StatementShape(Array(action.tokens.dropFirst()))
        let notValid = action.containsSequence(["NOT", "VALID"])
        if body.isConstraintDefinition {
            learnCheck(table: table, body, name: nil, validated: !notValid)
            if notValid, body.matches(["CONSTRAINT"]), let name = body.tokens.dropFirst().first?.identifier {
                context.addedNotValid.insert("\(table).\(name)")
            }
            let buildsIndex = action.containsSequence(["UNIQUE"]) || action.containsSequence(["PRIMARY", "KEY"])
            if buildsIndex, !action.containsSequence(["USING", "INDEX"]) {
                context.report(
                    .createIndexNotConcurrently, head,
                    "ADD UNIQUE or PRIMARY KEY builds its index on \(table) while holding ACCESS EXCLUSIVE; CREATE UNIQUE INDEX CONCURRENTLY first, then ADD CONSTRAINT ... USING INDEX"
                )
            }
            let checksRows = action.containsSequence(["FOREIGN", "KEY"]) || action.containsSequence(["CHECK"])
            if checksRows, !notValid {
                context.report(
                    .constraintWithoutNotValid, head,
                    "adding a FOREIGN KEY or CHECK to \(table) scans every row while holding its lock; add it NOT VALID, then VALIDATE CONSTRAINT in a later migration"
                )
            }
            return
        }
        var index = 1
        if index < action.tokens.count, action.tokens[index].isKeyword("COLUMN") { index += 1 }
        index = action.skipIfNotExists(index)
        if index < action.tokens.count, let column = action.tokens[index].identifier {
            lintTypes(action, typeAt: index + 1, column: column, in: &context)
            if action.containsSequence(["NOT", "NULL"]) { notNullColumns.insert(TableColumn(table: table, column: column)) }
        }
        let hasDefault = action.containsSequence(["DEFAULT"])
        if action.containsSequence(["NOT", "NULL"]), !hasDefault, !action.containsSequence(["GENERATED"]) {
            context.report(
                .addColumnNotNullWithoutDefault, head,
                "ADD COLUMN ... NOT NULL without DEFAULT fails as soon as \(table) has rows; add it nullable (or with a constant default), backfill, then constrain"
            )
        }
        if let volatile = action.volatileValueSource() {
            context.report(
                .volatileDefault, head,
                "ADD COLUMN with \(volatile) fills every existing row, rewriting \(table) under ACCESS EXCLUSIVE; add the column without it, then backfill in batches"
            )
        }
        if action.containsSequence(["UNIQUE"]) || action.containsSequence(["PRIMARY", "KEY"]) {
            context.report(
                .createIndexNotConcurrently, head,
                "ADD COLUMN ... UNIQUE or PRIMARY KEY builds its index on \(table) while holding ACCESS EXCLUSIVE; add the column, CREATE UNIQUE INDEX CONCURRENTLY, then ADD CONSTRAINT ... USING INDEX"
            )
        }
        if action.containsSequence(["REFERENCES"]) {
            context.report(
                .constraintWithoutNotValid, head,
                "ADD COLUMN ... REFERENCES locks \(table) and the referenced table while it validates; add the column, then ADD CONSTRAINT ... FOREIGN KEY ... NOT VALID"
            )
        }
    }

    private mutating func lintAlterColumn(_ action: StatementShape, table: String, in context: inout FileContext) {
        let head = action.tokens[0]
        var index = 1
        if index < action.tokens.count, action.tokens[index].isKeyword("COLUMN") { index += 1 }
        guard index < action.tokens.count, let column = action.tokens[index].identifier else { return }
        let key = TableColumn(table: table, column: column)
        if let type = action.topLevelIndex(of: "TYPE") {
            lintTypes(action, typeAt: type + 1, column: column, in: &context)
            context.report(
                .alterColumnType, head,
                "ALTER COLUMN ... TYPE on \(table) usually rewrites the table and its indexes under ACCESS EXCLUSIVE; add a new column, backfill, and switch over"
            )
        }
        if action.containsSequence(["SET", "NOT", "NULL"]) {
            if !provesNotNull(table: table, column: column) {
                context.report(
                    .setNotNull, head,
                    "SET NOT NULL scans all of \(table) under ACCESS EXCLUSIVE, and no validated CHECK (\(column) IS NOT NULL) is known from earlier files or the database; first ADD CONSTRAINT ... CHECK (\(column) IS NOT NULL) NOT VALID, VALIDATE it in a later file, then SET NOT NULL"
                )
            }
            notNullColumns.insert(key)
        }
        if action.containsSequence(["DROP", "NOT", "NULL"]) {
            notNullColumns.remove(key)
            context.report(
                .dropNotNull, head,
                "DROP NOT NULL on \(table).\(column) lets NULLs in that deployed code does not expect, from the first one written; ship code that handles NULL first"
            )
        }
    }

    func lintTypes(_ definition: StatementShape, typeAt start: Int, column: String, in context: inout FileContext) {
        for concern in definition.typeConcerns(typeAt: start, column: column) {
            switch concern.kind {
            case .varcharLength:
                context.report(
                    .preferText, concern.token,
                    "\(column) \(concern.written): changing the length later takes ACCESS EXCLUSIVE (a rewrite when it shrinks); use text with CHECK (char_length(\(column)) <= n)"
                )
            case .fixedChar:
                context.report(
                    .banChar, concern.token,
                    "\(column) \(concern.written) is blank-padded and widening it rewrites the table; use text with a CHECK for the length"
                )
            case .timestampWithoutTimeZone:
                context.report(
                    .preferTimestamptz, concern.token,
                    "\(column) timestamp without time zone stores wall-clock time that shifts with the session's TimeZone, and changing it later rewrites the table; use timestamptz"
                )
            case .narrowIntegerID:
                context.report(
                    .preferBigintID, concern.token,
                    "\(column) \(concern.written) runs out at 2^31, and widening it to bigint later rewrites the table and every index and foreign key on it; use bigint (GENERATED BY DEFAULT AS IDENTITY for the table's own id)"
                )
            case .serial:
                context.report(
                    .preferIdentity, concern.token,
                    "\(column) \(concern.written) makes a separate sequence with its own owner and grants; use bigint GENERATED BY DEFAULT AS IDENTITY"
                )
            }
        }
    }
}
