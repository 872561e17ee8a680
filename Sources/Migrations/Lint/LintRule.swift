/// A lock, rewrite, breakage or safety hazard `lint` recognises. The raw value is the name used
/// in `-- lint:allow RULE`, in every finding and in `taskmigrate lint --explain RULE`.
public enum LintRule: String, Sendable, CaseIterable, Comparable {
    // Blocking: statements that hold a lock the application waits behind.

    /// CREATE INDEX (or ADD UNIQUE/PRIMARY KEY) on an existing table without CONCURRENTLY: blocks writes while it builds.
    case createIndexNotConcurrently = "create-index-not-concurrently"
    /// DROP INDEX without CONCURRENTLY: ACCESS EXCLUSIVE on the table, queued behind every running query.
    case dropIndexNotConcurrently = "drop-index-not-concurrently"
    /// REINDEX without CONCURRENTLY: blocks writes, and reads that use the index, for the whole rebuild.
    case reindexNotConcurrently = "reindex-not-concurrently"
    /// REFRESH MATERIALIZED VIEW without CONCURRENTLY: blocks every read of the view for the whole refresh.
    case refreshNotConcurrently = "refresh-not-concurrently"
    /// VACUUM FULL: rewrites the table under ACCESS EXCLUSIVE.
    case vacuumFull = "vacuum-full"
    /// CLUSTER: rewrites the table under ACCESS EXCLUSIVE.
    case cluster = "cluster"
    /// An explicit LOCK TABLE in a mode that blocks writes: held until the migration commits.
    case lockTable = "lock-table"
    /// ADD COLUMN ... NOT NULL without DEFAULT: fails on any table with rows.
    case addColumnNotNullWithoutDefault = "add-column-not-null-without-default"
    /// ADD COLUMN whose default is volatile (or serial, identity, stored generated): rewrites the table.
    case volatileDefault = "volatile-default"
    /// ALTER COLUMN ... TYPE: usually rewrites the table and its indexes under ACCESS EXCLUSIVE.
    case alterColumnType = "alter-column-type"
    /// ADD FOREIGN KEY or CHECK without NOT VALID: scans the table while holding its lock.
    case constraintWithoutNotValid = "constraint-without-not-valid"
    /// ALTER COLUMN ... SET NOT NULL without a validated CHECK (col IS NOT NULL): scans the table under ACCESS EXCLUSIVE.
    case setNotNull = "set-not-null"

    // Breaking: statements that break code still deployed, or lose data.

    /// ALTER TABLE ... DROP COLUMN: breaks code that still reads the column.
    case dropColumn = "drop-column"
    /// DROP TABLE: breaks code that still uses the table, and loses its data.
    case dropTable = "drop-table"
    /// RENAME COLUMN: breaks every deployed query that names the column.
    case renameColumn = "rename-column"
    /// ALTER TABLE ... RENAME TO: breaks every deployed query that names the table.
    case renameTable = "rename-table"
    /// ALTER COLUMN ... DROP NOT NULL: deployed code that assumes a value starts reading NULLs.
    case dropNotNull = "drop-not-null"
    /// TRUNCATE: deletes every row (with CASCADE, of every referencing table too) under ACCESS EXCLUSIVE.
    case truncate = "truncate"
    /// DROP VIEW, FUNCTION, TYPE, DOMAIN, SEQUENCE, EXTENSION ...: breaks code (and policies, views) still using it.
    case dropObject = "drop-object"
    /// DROP DATABASE: loses a whole database.
    case dropDatabase = "drop-database"
    /// DROP SCHEMA: loses the schema and, with CASCADE, everything in it.
    case dropSchema = "drop-schema"

    // Escaping the runner's safety.

    /// A -- migrate:no-transaction file with more than one statement: a failure leaves it half done.
    case noTransactionMultipleStatements = "no-transaction-multiple-statements"
    /// CREATE/DROP/REINDEX ... CONCURRENTLY in a transactional file: the server refuses it.
    case concurrentlyInTransaction = "concurrently-in-transaction"
    /// SET lock_timeout/statement_timeout to 0 or DEFAULT, RESET them or RESET ALL: switches off the runner's protection.
    case timeoutDisabled = "timeout-disabled"
    /// SET ROLE, RESET ROLE, SET SESSION AUTHORIZATION: new objects belong to the wrong role.
    case roleChanged = "role-changed"
    /// ALTER TYPE ... ADD VALUE and a use of the value in the same transaction: fails at apply time.
    case enumValueUsedInTransaction = "enum-value-used-in-transaction"
    /// SECURITY DEFINER without SET search_path ending in pg_temp: a caller's temporary table shadows the function's.
    case securityDefinerSearchPath = "security-definer-search-path"

    // Type choices that cost a rewrite later.

    /// varchar(n): changing n later needs ACCESS EXCLUSIVE (and a rewrite when it shrinks); text with a CHECK does not.
    case preferText = "prefer-text"
    /// char(n): blank-padded, compares surprisingly, and widening it rewrites the table.
    case banChar = "ban-char"
    /// An int/smallint/serial id: runs out at 2^31; widening it to bigint rewrites the table and its indexes.
    case preferBigintID = "prefer-bigint-id"
    /// serial/bigserial: a sequence with its own owner and grants; GENERATED ... AS IDENTITY belongs to the column.
    case preferIdentity = "prefer-identity"
    /// timestamp without time zone: stores wall-clock time with no zone; changing it later rewrites the table.
    case preferTimestamptz = "prefer-timestamptz"

    /// True for the type-choice rules, which also apply to tables created in the same file.
    public var isTypeChoice: Bool {
        [.preferText, .banChar, .preferBigintID, .preferIdentity, .preferTimestamptz].contains(self)
    }

    /// False for the rules about the schema a file leaves rather than what applying it does
    /// (type choices, a SECURITY DEFINER search_path): `taskmigrate lint` fails on them, while
    /// `up` applies the file with a warning, since only a later migration can change an applied
    /// file's result and refusing would stop every fresh database short of that fix.
    public var stopsUp: Bool {
        !isTypeChoice && self != .securityDefinerSearchPath
    }

    /// Rules in a stable order, for listings.
    public static func < (lhs: LintRule, rhs: LintRule) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}
