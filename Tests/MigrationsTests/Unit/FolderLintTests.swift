import Foundation
import Migrations
import Testing

@Suite("Lint across the files of a folder")
struct FolderLintTests {
    private func files(_ texts: String...) throws -> [MigrationFile] {
        try texts.enumerated().map { index, text in
            try migration(text, fileName: String(format: "%04d_step.sql", index + 1))
        }
    }

    private func refused(_ files: [MigrationFile], database: LintDatabaseFacts = LintDatabaseFacts()) -> [LintFinding] {
        MigrationLinter().lint(files, database: database).filter { !$0.isAllowed }
    }

    private let addCheck = "ALTER TABLE tasks ADD CONSTRAINT tasks_due_nn CHECK (due_date IS NOT NULL) NOT VALID;"
    private let validate = "ALTER TABLE tasks VALIDATE CONSTRAINT tasks_due_nn;"
    private let setNotNull = "ALTER TABLE tasks ALTER COLUMN due_date SET NOT NULL;"

    @Test("SET NOT NULL passes after a CHECK (col IS NOT NULL) added NOT VALID and validated in earlier files")
    func validatedCheckInEarlierFiles() throws {
        #expect(refused(try files(addCheck, validate, setNotNull)).isEmpty)
    }

    @Test("SET NOT NULL is still flagged when the check was never validated, was dropped, or is on another column")
    func checkThatDoesNotProve() throws {
        #expect(refused(try files(addCheck, setNotNull)).map(\.rule) == [.setNotNull])
        #expect(refused(try files(addCheck, validate, "ALTER TABLE tasks DROP CONSTRAINT tasks_due_nn;", setNotNull)).map(\.rule) == [.setNotNull])
        #expect(refused(try files(addCheck, validate, "ALTER TABLE tasks ALTER COLUMN title SET NOT NULL;")).map(\.rule) == [.setNotNull])
        #expect(refused(try files(addCheck, validate, "ALTER TABLE teams ALTER COLUMN due_date SET NOT NULL;")).map(\.rule) == [.setNotNull])
    }

    @Test("a check that only implies NOT NULL through AND, or one validated at once (lint:allow), also proves it")
    func otherProvingChecks() throws {
        let conjunct =
            "-- lint:allow constraint-without-not-valid (small table)\nALTER TABLE tasks ADD CONSTRAINT c CHECK ((due_date IS NOT NULL) AND due_date > '2000-01-01');"
        #expect(refused(try files(conjunct, setNotNull)).isEmpty)
        let disjunct =
            "-- lint:allow constraint-without-not-valid\nALTER TABLE tasks ADD CONSTRAINT c CHECK (due_date IS NOT NULL OR status = 'done');"
        #expect(refused(try files(disjunct, setNotNull)).map(\.rule) == [.setNotNull])
    }

    @Test("a validated check the database already has makes SET NOT NULL pass")
    func databaseFacts() throws {
        let facts = LintDatabaseFacts(notNullColumns: [.init(table: "tasks", column: "due_date")])
        #expect(refused(try files(setNotNull), database: facts).isEmpty)
        #expect(refused(try files(setNotNull)).map(\.rule) == [.setNotNull])
    }

    private let unsafeDefiner = """
        CREATE FUNCTION visible_ids() RETURNS bigint[] LANGUAGE sql STABLE SECURITY DEFINER
            SET search_path FROM CURRENT AS $$ SELECT ARRAY[1::bigint] $$;
        """

    @Test("a SECURITY DEFINER function is reported where it was made unsafe, unless a later file pins its search_path")
    func securityDefinerFixedLater() throws {
        let alone = refused(try files(unsafeDefiner, "SELECT 1;"))
        #expect(alone.map(\.rule) == [.securityDefinerSearchPath])
        #expect(alone.first?.path == "migrations/0001_step.sql")
        #expect(alone.first?.reason.contains("an applied file cannot be edited") == true)
        let fix = "ALTER FUNCTION visible_ids() SET search_path = pg_catalog, public, pg_temp;"
        #expect(refused(try files(unsafeDefiner, fix)).isEmpty)
        #expect(refused(try files(unsafeDefiner, "ALTER FUNCTION visible_ids() SET search_path = pg_temp, public;")).count == 1)
        #expect(refused(try files(unsafeDefiner, "DROP FUNCTION visible_ids();")).map(\.rule) == [.dropObject])
        #expect(refused(try files(unsafeDefiner, "ALTER FUNCTION visible_ids() SECURITY INVOKER;")).isEmpty)
    }

    @Test("the project's folder lints clean; before 0007 pinned its search_path, 0002's FROM CURRENT was its only finding")
    func projectFolder() throws {
        let folder = try MigrationFolder.project()
        defer { folder.delete() }
        #expect(refused(try folder.directory.load()).isEmpty)
        for file in try folder.directory.load() where file.version >= 7 { try folder.remove(file.fileName) }
        let beforeFix = refused(try folder.directory.load())
        #expect(beforeFix.map(\.rule) == [.securityDefinerSearchPath])
        #expect(beforeFix.first?.path.hasSuffix("0002_runtime_role_and_row_security.sql") == true)
        #expect(beforeFix.first?.line == 42)
    }

    @Test("a folder with several bad files reports every file's findings and every unreadable file")
    func everyFileReported() throws {
        let folder = try MigrationFolder([
            "0001_drop.sql": "ALTER TABLE tasks DROP COLUMN notes;\n",
            "0002_broken.sql": "-- migrate:sideways\nSELECT 1;\n",
            "0003_index.sql": "CREATE INDEX tasks_x ON tasks (x);\n",
            "0004_fine.sql": "ALTER TABLE tasks ADD COLUMN x text;\n",
            "0005_truncate.sql": "TRUNCATE tasks;\n",
        ])
        defer { folder.delete() }
        let target = try LintTarget(directory: folder.directory, paths: [])
        #expect(target.errors.map { ($0.path as NSString).lastPathComponent } == ["0002_broken.sql"])
        let findings = target.lint()
        #expect(findings.map { ($0.path as NSString).lastPathComponent } == ["0001_drop.sql", "0003_index.sql", "0005_truncate.sql"])
        #expect(findings.map(\.rule) == [.dropColumn, .createIndexNotConcurrently, .truncate])
    }

    @Test("a named file inside the folder is linted with the folder around it; one elsewhere on its own")
    func namedFiles() throws {
        let folder = try MigrationFolder([
            "0001_check.sql": addCheck + "\n",
            "0002_validate.sql": validate + "\n",
            "0003_required.sql": setNotNull + "\n",
        ])
        defer { folder.delete() }
        let inFolder = try LintTarget(directory: folder.directory, paths: [folder.path + "/0003_required.sql"])
        #expect(inFolder.lint().isEmpty)
        let elsewhere = try LintTarget(directory: MigrationDirectory(path: "migrations"), paths: [folder.path + "/0003_required.sql"])
        #expect(elsewhere.lint().map(\.rule) == [.setNotNull])
    }

    @Test("an enum value used in the transaction that added it is flagged at the use; in a later file it passes")
    func enumValues() throws {
        let add = "ALTER TYPE task_state ADD VALUE IF NOT EXISTS 'blocked';"
        let use = "UPDATE tasks SET state = 'blocked';"
        let same = refused(try files(add + "\n" + use))
        #expect(same.map(\.rule) == [.enumValueUsedInTransaction])
        #expect(same.first?.line == 2)
        #expect(same.first?.column == 26)
        #expect(refused(try files(add, use)).isEmpty)
    }
}
