import Migrations
import Testing

@Suite("Lint rules")
struct MigrationLinterTests {
    private func rules(_ text: String) throws -> [LintRule] {
        MigrationLinter().lint(try migration(text)).map(\.rule)
    }

    @Test(
        "each rule trips on its hazard",
        arguments: [
            (LintRule.createIndexNotConcurrently, "CREATE INDEX tasks_due ON tasks (team_id, due_date);"),
            (.createIndexNotConcurrently, "CREATE UNIQUE INDEX IF NOT EXISTS tasks_x ON ONLY public.tasks (x);"),
            (.createIndexNotConcurrently, "ALTER TABLE tasks ADD CONSTRAINT tasks_title_key UNIQUE (team_id, title);"),
            (.addColumnNotNullWithoutDefault, "ALTER TABLE tasks ADD COLUMN category text NOT NULL;"),
            (.volatileDefault, "ALTER TABLE tasks ADD COLUMN token uuid DEFAULT gen_random_uuid();"),
            (.volatileDefault, "ALTER TABLE tasks ADD COLUMN seq bigserial;"),
            (.volatileDefault, "ALTER TABLE tasks ADD COLUMN n bigint GENERATED ALWAYS AS IDENTITY;"),
            (.alterColumnType, "ALTER TABLE tasks ALTER COLUMN title TYPE varchar(200);"),
            (.alterColumnType, "ALTER TABLE tasks ALTER title SET DATA TYPE text;"),
            (.constraintWithoutNotValid, "ALTER TABLE tasks ADD CONSTRAINT fk FOREIGN KEY (owner) REFERENCES users (id);"),
            (.constraintWithoutNotValid, "ALTER TABLE tasks ADD CHECK (priority <> '');"),
            (.constraintWithoutNotValid, "ALTER TABLE tasks ADD COLUMN owner bigint REFERENCES users (id);"),
            (.setNotNull, "ALTER TABLE tasks ALTER COLUMN title SET NOT NULL;"),
            (.dropColumn, "ALTER TABLE tasks DROP COLUMN notes;"),
            (.dropColumn, "ALTER TABLE tasks DROP IF EXISTS notes;"),
            (.dropTable, "DROP TABLE tasks;"),
            (
                .noTransactionMultipleStatements,
                "-- migrate:no-transaction\nCREATE INDEX CONCURRENTLY a ON t (a);\nCREATE INDEX CONCURRENTLY b ON t (b);"
            ),
            (.concurrentlyInTransaction, "CREATE INDEX CONCURRENTLY tasks_due ON tasks (due_date);"),
            (.timeoutDisabled, "SET lock_timeout = 0;"),
            (.timeoutDisabled, "SET LOCAL statement_timeout TO '0';"),
            (.timeoutDisabled, "SET SESSION lock_timeout = DEFAULT;"),
            (.timeoutDisabled, "-- migrate:no-transaction\nDISCARD ALL;"),
            (.roleChanged, "SET LOCAL ROLE taskbase_app;"),
            (.roleChanged, "RESET SESSION AUTHORIZATION;"),
            (.roleChanged, "SET SESSION AUTHORIZATION 'someone';"),
            (.vacuumFull, "-- migrate:no-transaction\nVACUUM (FULL, ANALYZE) tasks;"),
            (.lockTable, "LOCK tasks, teams IN SHARE MODE;"),
            (.dropIndexNotConcurrently, "DROP INDEX IF EXISTS public.tasks_due;"),
            (.truncate, "TRUNCATE TABLE ONLY tasks RESTART IDENTITY;"),
            (.preferText, "ALTER TABLE tasks ADD COLUMN code character varying (20);"),
            (.preferText, "ALTER TABLE tasks ALTER COLUMN title TYPE varchar(500);"),
            (.preferTimestamptz, "CREATE TABLE t (id bigint, at timestamp(3) without time zone);"),
            (.preferBigintID, "CREATE TABLE t (id smallserial);"),
            (.preferBigintID, "CREATE TABLE t (id bigint, owner int REFERENCES users (id));"),
            (.preferIdentity, "CREATE TABLE t (id serial8 PRIMARY KEY);"),
            (.banChar, "CREATE TABLE t (id bigint, flag character);"),
            (
                .securityDefinerSearchPath,
                "CREATE OR REPLACE FUNCTION f() RETURNS int LANGUAGE sql SECURITY DEFINER SET search_path = 'public, pg_temp' AS 'SELECT 1';"
            ),
            (.securityDefinerSearchPath, "CREATE PROCEDURE p() LANGUAGE sql SECURITY DEFINER SET search_path TO pg_temp, public AS 'SELECT 1';"),
            (.securityDefinerSearchPath, "ALTER FUNCTION f() SECURITY DEFINER SET search_path = public;"),
        ])
    func trips(rule: LintRule, text: String) throws {
        #expect(try rules(text).contains(rule))
    }

    @Test(
        "each rule passes the safe form",
        arguments: [
            (LintRule.createIndexNotConcurrently, "-- migrate:no-transaction\nCREATE INDEX CONCURRENTLY tasks_due ON tasks (team_id, due_date);"),
            (.createIndexNotConcurrently, "CREATE TABLE fresh (id bigint);\nCREATE INDEX fresh_id ON fresh (id);"),
            (.createIndexNotConcurrently, "ALTER TABLE tasks ADD CONSTRAINT tasks_title_key UNIQUE USING INDEX tasks_title_idx;"),
            (.addColumnNotNullWithoutDefault, "ALTER TABLE tasks ADD COLUMN archived boolean NOT NULL DEFAULT false;"),
            (.addColumnNotNullWithoutDefault, "ALTER TABLE tasks ADD COLUMN category text CHECK (category IS NOT NULL OR true);"),
            (.volatileDefault, "ALTER TABLE tasks ADD COLUMN seen_at timestamptz DEFAULT now();"),
            (.volatileDefault, "ALTER TABLE tasks ALTER COLUMN token SET DEFAULT gen_random_uuid();"),
            (.alterColumnType, "ALTER TABLE tasks ADD COLUMN type text;"),
            (.constraintWithoutNotValid, "ALTER TABLE tasks ADD CONSTRAINT fk FOREIGN KEY (owner) REFERENCES users (id) NOT VALID;"),
            (.constraintWithoutNotValid, "ALTER TABLE tasks VALIDATE CONSTRAINT fk;"),
            (.setNotNull, "ALTER TABLE tasks ALTER COLUMN title DROP NOT NULL;"),
            (.dropColumn, "ALTER TABLE tasks DROP CONSTRAINT fk;"),
            (.dropTable, "DROP INDEX CONCURRENTLY IF EXISTS tasks_due;"),
            (.noTransactionMultipleStatements, "-- migrate:no-transaction\nCREATE INDEX CONCURRENTLY a ON t (a);"),
            (.concurrentlyInTransaction, "-- migrate:no-transaction\nCREATE INDEX CONCURRENTLY tasks_due ON tasks (due_date);"),
            (.timeoutDisabled, "SET lock_timeout = '2s';"),
            (.timeoutDisabled, "RESET search_path;"),
            (.roleChanged, "GRANT SELECT ON tasks TO taskbase_app;"),
            (.lockTable, "LOCK TABLE tasks IN ROW EXCLUSIVE MODE;"),
            (.dropIndexNotConcurrently, "CREATE INDEX t_x ON fresh (x);\nDROP INDEX t_x;"),
            (.reindexNotConcurrently, "-- migrate:no-transaction\nREINDEX (VERBOSE) TABLE CONCURRENTLY tasks;"),
            (.renameColumn, "ALTER TABLE tasks RENAME CONSTRAINT a TO b;"),
            (.preferText, "ALTER TABLE tasks ADD COLUMN code varchar;"),
            (.preferTimestamptz, "CREATE TABLE t (id bigint, at timestamp (3) with time zone);"),
            (.preferBigintID, "CREATE TABLE t (id bigint GENERATED ALWAYS AS IDENTITY, count int);"),
            (
                .securityDefinerSearchPath,
                "CREATE FUNCTION f() RETURNS int LANGUAGE sql SECURITY DEFINER SET search_path = \"$user\", public, \"pg_temp\" AS 'SELECT 1';"
            ),
            (.securityDefinerSearchPath, "ALTER FUNCTION unknown_elsewhere() OWNER TO taskbase_owner;"),
        ])
    func passes(rule: LintRule, text: String) throws {
        #expect(try !rules(text).contains(rule))
    }

    @Test("statements on a table created in the same file are not flagged")
    func newTables() throws {
        #expect(
            try rules(
                """
                CREATE TABLE t (id bigint);
                ALTER TABLE t ADD COLUMN a int NOT NULL, ADD CONSTRAINT c CHECK (a > 0), ALTER COLUMN id TYPE numeric;
                CREATE INDEX t_a ON t (a);
                ALTER TABLE t RENAME COLUMN a TO b, ALTER COLUMN b DROP NOT NULL;
                TRUNCATE t;
                LOCK TABLE t;
                DROP TABLE t;
                """
            ).isEmpty)
    }

    @Test("a finding names file, line and rule in one line, and -- lint:allow marks it allowed")
    func findingFormat() throws {
        let file = try migration(
            """
            -- lint:allow drop-column
            -- migrate:up
            ALTER TABLE tasks
              DROP COLUMN notes,
              ALTER COLUMN title SET NOT NULL;
            """)
        let findings = MigrationLinter().lint(file)
        #expect(findings.count == 2)
        #expect(findings[0].description.hasPrefix("migrations/0001_test.sql:4:3: drop-column: "))
        #expect(findings[0].isAllowed)
        #expect(findings[1].description.hasPrefix("migrations/0001_test.sql:5:3: set-not-null: "))
        #expect(!findings[1].isAllowed)
        #expect(!findings.contains { $0.description.contains("\n") })
    }

    @Test("the down section is not linted")
    func downNotLinted() throws {
        #expect(try rules("-- migrate:up\nCREATE TABLE t (id bigint);\n-- migrate:down\nDROP TABLE t;\n").isEmpty)
    }
}
