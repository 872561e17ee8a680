import Hashing
import Migrations
import Testing

@Suite("Migration files")
struct MigrationFileTests {
    @Test(
        "NNNN_snake_name.sql names parse into version and name",
        arguments: [
            ("0001_create_users.sql", 1, "create_users"),
            ("0042_add_category2.sql", 42, "add_category2"),
            ("20261130120000_big_version.sql", 20_261_130_120_000, "big_version"),
        ])
    func goodNames(fileName: String, version: Int64, name: String) throws {
        let parsed = try MigrationFileName.parse(fileName).get()
        #expect(parsed == MigrationFileName(version: version, name: name))
    }

    @Test(
        "other names are rejected with the reason",
        arguments: [
            ("1_init.sql", "fewer than 4 digits"),
            ("0001-init.sql", "no underscore"),
            ("00a1_init.sql", "is not a number"),
            ("0001_Init.sql", "not snake_case"),
            ("0001_add__double.sql", "not snake_case"),
            ("0001_trailing_.sql", "not snake_case"),
            ("0000_zero.sql", "between 1 and"),
            ("0001_init.SQL", "does not end in .sql"),
        ])
    func badNames(fileName: String, reason: String) {
        guard case .failure(let error) = MigrationFileName.parse(fileName) else {
            Issue.record("\(fileName) was accepted")
            return
        }
        #expect(error.description.contains(reason))
        #expect(error.description.contains("NNNN_snake_name.sql"))
    }

    @Test("a file without markers is all up, transactional, with no down")
    func plainFile() throws {
        let file = try migration("CREATE TABLE a (id int);\nCREATE TABLE b (id int);\n")
        #expect(file.up.count == 2)
        #expect(file.down == nil)
        #expect(file.runsInTransaction)
        #expect(file.line(of: file.up[1]) == 2)
    }

    @Test("up and down sections split the file; lines stay the file's lines")
    func sections() throws {
        let file = try migration(
            """
            -- a comment before the sections
            -- migrate:up
            CREATE TABLE a (id int);

            -- migrate:down
            DROP TABLE a;
            """)
        #expect(file.up.map(\.text) == ["CREATE TABLE a (id int);"])
        #expect(file.down?.map(\.text) == ["DROP TABLE a;"])
        #expect(file.line(of: file.up[0]) == 3)
        #expect(file.down.map { file.line(of: $0[0]) } == 6)
    }

    @Test("the no-transaction and lint:allow directives are read")
    func directives() throws {
        let file = try migration(
            """
            -- migrate:no-transaction
            -- lint:allow drop-column,set-not-null because the column is unused since v2
            -- lint:allow drop-table
            -- migrate:up
            CREATE INDEX CONCURRENTLY i ON t (a);
            """)
        #expect(!file.runsInTransaction)
        #expect(file.allowedLintRules == [.dropColumn, .setNotNull, .dropTable])
    }

    @Test("a marker inside a string or dollar quote is not a directive")
    func markersInQuotes() throws {
        let file = try migration(
            """
            -- migrate:up
            SELECT '-- migrate:down';
            DO $$ BEGIN RAISE NOTICE '%', '
            -- migrate:down
            '; END $$;
            """)
        #expect(file.down == nil)
        #expect(file.up.count == 2)
    }

    @Test(
        "broken directives and structure are errors naming the line",
        arguments: [
            ("-- migrate:up\nSELECT 1;\n-- migrate:sideways\n", 3, "unknown directive"),
            ("-- lint:allow no-such-rule\nSELECT 1;\n", 1, "unknown lint rule \"no-such-rule\""),
            ("-- lint:allow\nSELECT 1;\n", 1, "names no rule"),
            ("SELECT 1;\n-- migrate:up\nSELECT 2;\n", 1, "SQL before the -- migrate:up marker"),
            ("-- migrate:down\nSELECT 1;\n-- migrate:up\nSELECT 2;\n", 3, "must come before"),
            ("-- migrate:up\n-- migrate:up\n", 2, "a second -- migrate:up"),
            ("-- migrate:up\nSELECT 'open;\n", 2, "never closed"),
            ("-- migrate:up\n/* open\n", 2, "never closed"),
        ])
    func brokenFiles(text: String, line: Int, message: String) {
        #expect {
            try migration(text)
        } throws: { error in
            guard let error = error as? MigrationFileError else { return false }
            return error.line == line && error.description.contains(message) && error.description.hasPrefix("migrations/0001_test.sql:\(line):")
        }
    }

    @Test("the checksum is the SHA-256 of the file's exact bytes")
    func checksum() throws {
        let text = "SELECT 1;\r\n"
        #expect(try migration(text).checksum == SHA256.hexDigest(of: Array(text.utf8)))
        #expect(try migration(text).checksum != migration("SELECT 1;\n").checksum)
    }
}

@Suite("Migration files: transaction control")
struct TransactionControlTests {
    @Test(
        "COMMIT, BEGIN or ROLLBACK in a transactional file is rejected, naming the line",
        arguments: ["COMMIT;", "BEGIN;", "ROLLBACK;", "START TRANSACTION;", "END;"])
    func rejected(statement: String) {
        #expect {
            try migration("CREATE TABLE a (id int);\n\(statement)\n")
        } throws: { error in
            (error as? MigrationFileError)?.line == 2 && String(describing: error).contains("history row")
        }
    }

    @Test("BEGIN inside a function body or a DO block is not transaction control")
    func functionBodies() throws {
        _ = try migration(
            """
            DO $$ BEGIN PERFORM 1; END $$;
            CREATE FUNCTION f() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT 1; END;
            """)
    }
}

@Suite("Migration folders")
struct MigrationDirectoryTests {
    @Test("files load in version order; other files and hidden files are ignored")
    func ordering() throws {
        let folder = try MigrationFolder([
            "0010_ten.sql": "SELECT 10;\n", "0002_two.sql": "SELECT 2;\n", "README.md": "notes\n", ".0003_hidden.sql": "SELECT 3;\n",
        ])
        defer { folder.delete() }
        #expect(try folder.directory.load().map(\.version) == [2, 10])
    }

    @Test("schema.sql, the generated dump beside the migrations, is not a migration; another badly named .sql file is an error")
    func schemaFile() throws {
        let folder = try MigrationFolder(["0001_a.sql": "SELECT 1;\n", MigrationDirectory.schemaFileName: "CREATE TABLE a (id int);\n"])
        defer { folder.delete() }
        #expect(try folder.directory.load().map(\.version) == [1])
        try folder.write("schema_dump.sql", "SELECT 2;\n")
        #expect(throws: MigrationFileError.self) { try folder.directory.load() }
    }

    @Test("two files with one version are rejected, naming both")
    func duplicateVersion() throws {
        let folder = try MigrationFolder(["0001_a.sql": "SELECT 1;\n", "00001_b.sql": "SELECT 1;\n"])
        defer { folder.delete() }
        #expect {
            try folder.directory.load()
        } throws: { error in
            let text = String(describing: error)
            return text.contains("version 1 is also used by") && text.contains("0001_a.sql") && text.contains("00001_b.sql")
        }
    }

    @Test("a missing folder is an error that says how to point at the right one")
    func missingFolder() {
        #expect {
            try MigrationDirectory(path: "/nonexistent/taskbase-migrations").load()
        } throws: { String(describing: $0).contains("TASKBASE_MIGRATIONS_DIR") }
    }
}

@Suite("Migration files: encoding")
struct MigrationEncodingTests {
    @Test("a file that is not valid UTF-8 is rejected, naming the line")
    func invalidUTF8() {
        let bytes = Array("SELECT 1;\nSELECT '".utf8) + [0xC3, 0x28] + Array("';\n".utf8)
        #expect {
            try MigrationFile.parse(fileName: "0001_bad.sql", path: "0001_bad.sql", bytes: bytes)
        } throws: { ($0 as? MigrationFileError)?.line == 2 && String(describing: $0).contains("not valid UTF-8") }
    }

    @Test("a .SQL file (wrong-case extension) in the folder is refused by name, not silently skipped")
    func upperCaseExtension() throws {
        let folder = try MigrationFolder(["0001_a.sql": "CREATE TABLE a (id int);\n", "0010_x.SQL": "CREATE TABLE x (id int);\n"])
        defer { folder.delete() }
        #expect {
            _ = try folder.directory.load()
        } throws: { error in
            let text = String(describing: error)
            return text.contains("0010_x.SQL") && text.contains("rename it to 0010_x.sql")
        }
    }

    @Test("a UTF-8 byte order mark at the top of a migration is not SQL: its markers still count")
    func byteOrderMark() throws {
        let bytes = [0xEF, 0xBB, 0xBF] + Array("-- migrate:up\nCREATE TABLE a (id int);\n-- migrate:down\nDROP TABLE a;\n".utf8)
        let file = try MigrationFile.parse(fileName: "0001_a.sql", path: "0001_a.sql", bytes: bytes)
        #expect(file.up.map(\.text) == ["CREATE TABLE a (id int);"])
        #expect(file.down?.map(\.text) == ["DROP TABLE a;"])
        #expect(file.dataDroppingDownStatements == ["DROP TABLE"])
    }

    @Test("a down section that only redefines a function whose body deletes rows drops no data; a DO block that deletes does")
    func functionBodiesDropNothing() throws {
        // 0026's down section restores taskbase_leave_team, whose body deletes a membership:
        // `down` once asked for --yes, saying it drops data.
        let text = """
            -- migrate:up
            SELECT 1;
            -- migrate:down
            CREATE OR REPLACE FUNCTION f() RETURNS void LANGUAGE plpgsql AS $$ BEGIN DELETE FROM a; END $$;
            CREATE PROCEDURE p() LANGUAGE sql AS $body$ TRUNCATE a $body$;
            DROP FUNCTION g();

            """
        let file = try MigrationFile.parse(fileName: "0001_a.sql", path: "0001_a.sql", bytes: Array(text.utf8))
        #expect(file.dataDroppingDownStatements.isEmpty)
        let block = "-- migrate:up\nSELECT 1;\n-- migrate:down\nDO $$ BEGIN DELETE FROM a; END $$;\n"
        #expect(
            try MigrationFile.parse(fileName: "0001_a.sql", path: "0001_a.sql", bytes: Array(block.utf8)).dataDroppingDownStatements == [
                "DELETE FROM"
            ])
        // A section that defines a function and runs it (or fires it) does drop the data.
        for runner in ["SELECT wipe();", "CALL wipe();", "INSERT INTO fires VALUES (1);", "SELECT * FROM wipe();"] {
            let section =
                "-- migrate:up\nSELECT 1;\n-- migrate:down\n"
                + "CREATE FUNCTION wipe() RETURNS void LANGUAGE sql AS $$ DELETE FROM a $$;\n\(runner)\nDROP FUNCTION wipe();\n"
            let file = try MigrationFile.parse(fileName: "0001_a.sql", path: "0001_a.sql", bytes: Array(section.utf8))
            #expect(file.dataDroppingDownStatements == ["DELETE FROM"], "\(runner)")
        }
    }

    @Test("a dropped column is data lost with or without COLUMN, and so is a type dropped with its columns; a comment's words are not")
    func columnsTypesAndComments() throws {
        let text = """
            -- migrate:up
            SELECT 1;
            -- migrate:down
            ALTER TABLE t DROP payload;
            ALTER TABLE t DROP COLUMN IF EXISTS other;
            ALTER TABLE t DROP CONSTRAINT t_check, ALTER COLUMN x DROP DEFAULT, ALTER COLUMN y DROP NOT NULL;
            DROP TYPE mood CASCADE;
            DROP TYPE unused;
            COMMENT ON TABLE t IS 'once DELETE FROM t';

            """
        let file = try MigrationFile.parse(fileName: "0001_a.sql", path: "0001_a.sql", bytes: Array(text.utf8))
        #expect(file.dataDroppingDownStatements.count == 3, "\(file.dataDroppingDownStatements)")
        #expect(file.dataDroppingDownStatements.last?.hasPrefix("DROP TYPE") == true)
    }

    @Test("--dir naming a file or nothing says so in words")
    func folderThatIsNot() throws {
        let folder = try MigrationFolder(["0001_a.sql": "CREATE TABLE a (id int);\n"])
        defer { folder.delete() }
        for (path, words) in [(folder.directory.filePath("0001_a.sql"), "is a file, not a folder"), (folder.path + "/missing", "no such folder")] {
            #expect {
                _ = try MigrationDirectory(path: path).load()
            } throws: { error in
                String(describing: error).contains(words) && !String(describing: error).contains("NSCocoaErrorDomain")
            }
        }
    }

    @Test("a file to lint that is missing or a folder says why in words, not in Foundation's")
    func fileThatIsNot() throws {
        let folder = try MigrationFolder(["0001_a.sql": "CREATE TABLE a (id int);\n"])
        defer { folder.delete() }
        for (path, words) in [
            (folder.path + "/0002_missing.sql", "cannot read the file: No such file or directory"),
            (folder.path, "this is a folder, not a migration file"),
        ] {
            #expect {
                _ = try MigrationDirectory.load(path: path)
            } throws: { error in
                String(describing: error).contains(words) && !String(describing: error).contains("NSCocoaErrorDomain")
            }
        }
    }
}
