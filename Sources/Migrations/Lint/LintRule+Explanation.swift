/// What each rule is about, for `taskmigrate lint --help` (one line each) and
/// `taskmigrate lint --explain RULE` (what it locks or breaks, for how long, what to write instead).
extension LintRule {
    /// One line: the statement shape and what it costs.
    public var summary: String { text.summary }

    /// A few lines: the hazard, how long it lasts, and the safe way with an example.
    public var explanation: String {
        let parts = text
        return """
            \(rawValue): \(parts.summary)

            What happens: \(parts.hazard)
            For how long: \(parts.duration)
            Instead: \(parts.instead)

            A reviewed exception: put -- lint:allow \(rawValue) (and why) in the file.

            """
    }

    private var text: (summary: String, hazard: String, duration: String, instead: String) {
        switch self {
        case .createIndexNotConcurrently:
            return (
                "CREATE INDEX (or ADD UNIQUE / PRIMARY KEY, also on a new column) on an existing table without CONCURRENTLY",
                "the build holds a SHARE lock (ACCESS EXCLUSIVE for ADD CONSTRAINT): every INSERT, UPDATE and DELETE on the table waits.",
                "the whole build, which grows with the table: minutes on a large one.",
                "CREATE INDEX CONCURRENTLY name ON table (...); alone in a -- migrate:no-transaction file; for a constraint, then ALTER TABLE table ADD CONSTRAINT c UNIQUE USING INDEX name."
            )
        case .dropIndexNotConcurrently:
            return (
                "DROP INDEX without CONCURRENTLY",
                "takes ACCESS EXCLUSIVE on the index's table: it waits behind every running query, and every query on the table queues behind it.",
                "as long as the longest query already running on the table, plus the drop.",
                "DROP INDEX CONCURRENTLY [IF EXISTS] name; alone in a -- migrate:no-transaction file."
            )
        case .reindexNotConcurrently:
            return (
                "REINDEX without CONCURRENTLY",
                "holds SHARE on the table (writes wait) and ACCESS EXCLUSIVE on the index (reads that would use it wait).",
                "the whole rebuild.",
                "REINDEX INDEX CONCURRENTLY name; (or TABLE CONCURRENTLY) alone in a -- migrate:no-transaction file."
            )
        case .refreshNotConcurrently:
            return (
                "REFRESH MATERIALIZED VIEW without CONCURRENTLY",
                "holds ACCESS EXCLUSIVE on the view: every SELECT from it waits.",
                "the whole refresh: the time its query takes.",
                "REFRESH MATERIALIZED VIEW CONCURRENTLY name; (the view needs a unique index without a WHERE clause)."
            )
        case .vacuumFull:
            return (
                "VACUUM FULL",
                "rewrites the table into a new file under ACCESS EXCLUSIVE: no reads, no writes; it also cannot run in a transaction.",
                "the whole rewrite, and it needs room for a second copy of the table.",
                "plain VACUUM (no lock on reads or writes) from maintenance, not a migration; to shrink a bloated table online, pg_repack."
            )
        case .cluster:
            return (
                "CLUSTER",
                "rewrites the table in index order under ACCESS EXCLUSIVE: no reads, no writes.",
                "the whole rewrite; the order is not kept for later rows anyway.",
                "leave the physical order alone, or reorder online with pg_repack --order-by from maintenance."
            )
        case .lockTable:
            return (
                "LOCK TABLE in SHARE mode or stronger (ACCESS EXCLUSIVE by default)",
                "blocks writes (SHARE, SHARE ROW EXCLUSIVE, EXCLUSIVE) or everything (ACCESS EXCLUSIVE) on the table.",
                "until the migration commits: the lock is held for every later statement of the file.",
                "let each statement take the lock it needs; if a step really needs the table still, make it a short file of its own."
            )
        case .addColumnNotNullWithoutDefault:
            return (
                "ADD COLUMN ... NOT NULL without DEFAULT",
                "fails with not_null_violation as soon as the table has a row.",
                "the migration fails and rolls back.",
                "ADD COLUMN c type DEFAULT constant NOT NULL (catalog-only since PostgreSQL 11), or add it nullable, backfill, then constrain."
            )
        case .volatileDefault:
            return (
                "ADD COLUMN with a volatile default (random(), gen_random_uuid(), nextval, serial, identity, STORED generated)",
                "every existing row gets its own value: the table and its indexes are rewritten under ACCESS EXCLUSIVE.",
                "the whole rewrite.",
                "ADD COLUMN without the default, ALTER COLUMN SET DEFAULT for new rows, backfill old rows in batches."
            )
        case .alterColumnType:
            return (
                "ALTER COLUMN ... TYPE",
                "most type changes rewrite the table and rebuild its indexes under ACCESS EXCLUSIVE; deployed code may also break on the new type.",
                "the whole rewrite.",
                "add a column of the new type, write both, backfill in batches, switch reads, drop the old column in a later release."
            )
        case .constraintWithoutNotValid:
            return (
                "ADD FOREIGN KEY or CHECK (or ALTER DOMAIN ADD CONSTRAINT) without NOT VALID, or VALIDATE in the same transaction",
                "checks every existing row while holding SHARE ROW EXCLUSIVE (foreign key, on both tables) or ACCESS EXCLUSIVE (CHECK); VALIDATE right after ADD ... NOT VALID in one transaction still scans under the ADD's ACCESS EXCLUSIVE.",
                "the whole scan.",
                "ADD CONSTRAINT ... NOT VALID (new rows are checked at once), then ALTER TABLE ... VALIDATE CONSTRAINT c in a later file: it scans under SHARE UPDATE EXCLUSIVE, which lets writes go on."
            )
        case .setNotNull:
            return (
                "ALTER COLUMN ... SET NOT NULL without a validated CHECK (col IS NOT NULL)",
                "scans the whole table for NULLs under ACCESS EXCLUSIVE.",
                "the whole scan.",
                "ADD CONSTRAINT c CHECK (col IS NOT NULL) NOT VALID; VALIDATE CONSTRAINT c in a later file; then SET NOT NULL, which PostgreSQL 12+ proves from the check without scanning. Lint recognises the validated check from earlier files of the folder and from the database."
            )
        case .dropColumn:
            return (
                "ALTER TABLE ... DROP COLUMN",
                "every deployed program that still reads or writes the column fails.",
                "from the migration until every such program is replaced.",
                "stop using the column in a release first, then drop it in a later migration (with -- lint:allow drop-column)."
            )
        case .dropTable:
            return (
                "DROP TABLE",
                "every deployed program that uses the table fails, and its rows are gone.",
                "for good: only a backup brings the rows back.",
                "stop using the table in a release first, then drop it in a later migration (with -- lint:allow drop-table)."
            )
        case .renameColumn:
            return (
                "ALTER TABLE ... RENAME COLUMN",
                "every deployed query that names the column fails with undefined_column.",
                "from the migration until every program is redeployed.",
                "add the new column, write both, backfill, switch reads, drop the old one later; or expose the new name through a view."
            )
        case .renameTable:
            return (
                "ALTER TABLE ... RENAME TO",
                "every deployed query that names the table fails with undefined_table.",
                "from the migration until every program is redeployed.",
                "create the new table (or a view under the new name), move code over, drop the old name in a later release."
            )
        case .dropNotNull:
            return (
                "ALTER COLUMN ... DROP NOT NULL",
                "deployed code that assumes the column always has a value starts reading NULLs (a decoding error or a crash).",
                "from the first NULL written until every program handles it.",
                "ship code that accepts NULL first, then drop the constraint (with -- lint:allow drop-not-null)."
            )
        case .truncate:
            return (
                "TRUNCATE",
                "deletes every row under ACCESS EXCLUSIVE; with CASCADE, also every row of every table that references it.",
                "for good: only a backup brings the rows back.",
                "DELETE the rows you mean, in batches, with a WHERE clause; data clean-ups belong in a reviewed script, not a schema migration."
            )
        case .dropObject:
            return (
                "DROP VIEW / MATERIALIZED VIEW / FUNCTION / PROCEDURE / TYPE / DOMAIN / SEQUENCE / EXTENSION",
                "every deployed program, view or policy that still uses the object fails (with CASCADE, the dependants are dropped too).",
                "from the migration until every user of it is gone or redeployed.",
                "stop using the object in a release first, then drop it in a later migration (with -- lint:allow drop-object)."
            )
        case .dropDatabase:
            return (
                "DROP DATABASE",
                "removes a whole database and everything in it (and cannot run in a transaction).",
                "for good.",
                "an operator's act outside migrations."
            )
        case .dropSchema:
            return (
                "DROP SCHEMA",
                "removes the schema; with CASCADE everything in it, tables and rows included.",
                "for good.",
                "drop the objects you mean one by one, after the code stopped using them."
            )
        case .noTransactionMultipleStatements:
            return (
                "a -- migrate:no-transaction file with more than one statement",
                "nothing undoes the earlier statements when a later one fails: the file is half applied and not recorded.",
                "until someone repairs it by hand.",
                "one statement per -- migrate:no-transaction file."
            )
        case .concurrentlyInTransaction:
            return (
                "CREATE/DROP INDEX CONCURRENTLY or REINDEX CONCURRENTLY in a transactional file",
                "PostgreSQL refuses it inside a transaction block (25001): the migration fails.",
                "the migration fails and rolls back.",
                "put the statement alone in a file marked -- migrate:no-transaction."
            )
        case .timeoutDisabled:
            return (
                "SET lock_timeout/statement_timeout = 0 or DEFAULT, RESET lock_timeout/statement_timeout, RESET ALL, DISCARD ALL",
                "the runner's lock_timeout and statement_timeout become 0 (no limit): a statement queued behind a long transaction waits forever, and every query on the table waits behind it.",
                "for the rest of the migration.",
                "leave the timeouts to taskmigrate --lock-timeout / --statement-timeout; raise them there for a slow migration."
            )
        case .roleChanged:
            return (
                "SET ROLE, RESET ROLE, SET ROLE NONE, SET SESSION AUTHORIZATION [DEFAULT], RESET SESSION AUTHORIZATION",
                "the runner runs each migration as taskbase_owner; after this, new objects are owned by the login (or another role), not taskbase_owner, and later migrations run as taskbase_owner cannot alter them.",
                "for good: ownership stays until someone hands the objects back.",
                "write the migration without a role change; what needs a superuser is an operator's run of its own."
            )
        case .enumValueUsedInTransaction:
            return (
                "ALTER TYPE ... ADD VALUE and a use of the new value in the same transactional file",
                "PostgreSQL refuses the use (55P04 unsafe use of new value): a new enum value cannot be used before its transaction commits.",
                "the migration fails and rolls back.",
                "add the value in one migration and use it in a later one."
            )
        case .securityDefinerSearchPath:
            return (
                "a SECURITY DEFINER function without SET search_path ending in pg_temp (FROM CURRENT included)",
                "the function runs with its owner's rights, and pg_temp is searched first unless it is named last: any caller can create a temporary table or function that shadows the ones it uses.",
                "for as long as the function exists.",
                "SET search_path = pg_catalog, public, pg_temp in the definition. An applied file cannot be edited: fix it in a later migration with ALTER FUNCTION f(...) SET search_path = pg_catalog, public, pg_temp; linting the folder recognises the fix."
            )
        case .preferText:
            return (
                "varchar(n) / character varying(n)",
                "changing n later takes ACCESS EXCLUSIVE (and shrinking it rewrites the table); the length is not a useful business rule.",
                "the length change's lock, when the limit proves wrong.",
                "text, with CHECK (char_length(col) <= n) when a limit matters (a CHECK can be replaced NOT VALID, without a rewrite)."
            )
        case .banChar:
            return (
                "char(n) / character(n)",
                "values are blank-padded to n, compare and concatenate surprisingly, and widening the column rewrites the table.",
                "for as long as the column exists.",
                "text, with a CHECK for the length or shape."
            )
        case .preferBigintID:
            return (
                "an int / smallint / serial id or key column",
                "runs out at 2,147,483,647 (32,767 for smallint); widening to bigint later rewrites the table and every index and foreign key on it.",
                "the rewrite, when the ids run out.",
                "bigint GENERATED BY DEFAULT AS IDENTITY (and bigint for columns that reference it)."
            )
        case .preferIdentity:
            return (
                "serial / bigserial / smallserial",
                "creates a separate sequence with its own owner and grants that dumps, ownership changes and copies of the table handle badly.",
                "for as long as the column exists.",
                "bigint GENERATED BY DEFAULT AS IDENTITY."
            )
        case .preferTimestamptz:
            return (
                "timestamp / timestamp without time zone",
                "stores wall-clock time with no zone: values shift with the session's TimeZone; changing the type later rewrites the table.",
                "for as long as the column exists.",
                "timestamptz (timestamp with time zone)."
            )
        }
    }
}
