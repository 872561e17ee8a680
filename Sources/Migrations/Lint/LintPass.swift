/// One run of lint over a sequence of files: the findings so far, and what the files so far
/// have established about the schema (NOT NULL proofs, SECURITY DEFINER functions).
struct LintPass {
    typealias TableColumn = LintDatabaseFacts.TableColumn

    /// A CHECK constraint that proves columns NOT NULL once validated.
    struct NotNullCheck {
        var table: String
        var columns: Set<String>
        var isValidated: Bool
    }

    /// A SECURITY DEFINER-relevant routine and the statement that last left it unsafe.
    struct RoutineState {
        var isDefiner: Bool
        var isPathSafe: Bool?
        var origin: LintFinding?
    }

    private(set) var findings: [LintFinding] = []
    var notNullColumns: Set<TableColumn>
    var checks: [String: NotNullCheck] = [:]
    var routines: [String: RoutineState] = [:]

    init(database: LintDatabaseFacts) {
        notNullColumns = database.notNullColumns
    }

    /// The findings, grouped by file in `order`, each file's by position; SECURITY DEFINER
    /// functions still unsafe at the end are reported where they were made unsafe.
    mutating func finish(order: [String]) -> [LintFinding] {
        let unsafe = routines.values.filter { $0.isDefiner && $0.isPathSafe == false }.compactMap(\.origin)
        let rank = Dictionary(order.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        return (findings + unsafe).enumerated().sorted { left, right in
            let a = (rank[left.element.path] ?? 0, left.element.line, left.element.column, left.offset)
            let b = (rank[right.element.path] ?? 0, right.element.line, right.element.column, right.offset)
            return a < b
        }.map(\.element)
    }

    func provesNotNull(table: String, column: String) -> Bool {
        notNullColumns.contains(TableColumn(table: table, column: column))
            || checks.values.contains { $0.table == table && $0.isValidated && $0.columns.contains(column) }
    }

    mutating func lint(_ file: MigrationFile) {
        var context = FileContext(file: file)
        for statement in file.up {
            let words = StatementShape(statement.codeTokens)
            guard let first = words.tokens.first else { continue }
            lintEnumUse(words, in: &context)
            if let table = words.createdTable() { context.createdTables.insert(table) }
            if let (table, elements) = words.tableElements() { learnTable(table, elements, in: &context) }
            lintIndexes(words, first: first, in: &context)
            lintAlterTable(words, in: &context)
            lintRoutine(words, first: first, in: context)
            lintBlocking(words, first: first, in: &context)
            lintBreaking(words, first: first, in: &context)
            lintSession(words, first: first, in: &context)
            lintDomain(words, first: first, in: &context)
        }
        if !file.runsInTransaction, file.up.count > 1, let second = file.up[1].codeTokens.first {
            context.report(
                .noTransactionMultipleStatements, second,
                "a -- migrate:no-transaction file runs outside a transaction, so with \(file.up.count) statements a failure leaves it half applied and unrecorded; put one statement per file"
            )
        }
        findings += context.findings
    }

    /// Where findings of one file go, and what that file alone created.
    struct FileContext {
        let file: MigrationFile
        var findings: [LintFinding] = []
        var createdTables: Set<String> = []
        var createdIndexes: Set<String> = []
        var createdViews: Set<String> = []
        var addedEnumValues: [String: String] = [:]
        var addedNotValid: Set<String> = []

        init(file: MigrationFile) {
            self.file = file
        }

        func finding(_ rule: LintRule, _ token: SQLToken, _ reason: String) -> LintFinding {
            let location = file.source.location(ofOffset: token.offset)
            return LintFinding(
                rule: rule, path: file.path, line: location.line, column: location.column, reason: reason,
                isAllowed: file.allowedLintRules.contains(rule))
        }

        mutating func report(_ rule: LintRule, _ token: SQLToken, _ reason: String) {
            findings.append(finding(rule, token, reason))
        }
    }
}
