/// A lock or rewrite hazard `lint` recognises. The raw value is the name used in
/// `-- lint:allow RULE` and in every finding.
public enum LintRule: String, Sendable, CaseIterable, Comparable {
    /// CREATE INDEX (or ADD UNIQUE/PRIMARY KEY) on an existing table without CONCURRENTLY: blocks writes while it builds.
    case createIndexNotConcurrently = "create-index-not-concurrently"
    /// ADD COLUMN ... NOT NULL without DEFAULT: fails on any table with rows.
    case addColumnNotNullWithoutDefault = "add-column-not-null-without-default"
    /// ADD COLUMN whose default is volatile (or serial, identity, stored generated): rewrites the table.
    case volatileDefault = "volatile-default"
    /// ALTER COLUMN ... TYPE: usually rewrites the table and its indexes under ACCESS EXCLUSIVE.
    case alterColumnType = "alter-column-type"
    /// ADD FOREIGN KEY or CHECK without NOT VALID: scans the table while holding its lock.
    case constraintWithoutNotValid = "constraint-without-not-valid"
    /// ALTER COLUMN ... SET NOT NULL: scans the whole table under ACCESS EXCLUSIVE.
    case setNotNull = "set-not-null"
    /// ALTER TABLE ... DROP COLUMN: breaks code that still reads the column.
    case dropColumn = "drop-column"
    /// DROP TABLE: breaks code that still uses the table, and loses its data.
    case dropTable = "drop-table"
    /// A `-- migrate:no-transaction` file with more than one statement: a failure leaves it half done.
    case noTransactionMultipleStatements = "no-transaction-multiple-statements"
    /// CREATE/DROP/REINDEX ... CONCURRENTLY in a transactional file: the server refuses it.
    case concurrentlyInTransaction = "concurrently-in-transaction"
    /// SET lock_timeout or statement_timeout to 0: switches off the runner's protection.
    case timeoutDisabled = "timeout-disabled"

    /// Rules in a stable order, for listings.
    public static func < (lhs: LintRule, rhs: LintRule) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}
