import Foundation
import Migrations
import Testing

@testable import taskmigrate

extension EndToEnd {
    @Suite("taskmigrate's command line (no database needed)")
    struct CommandLineTests {
        @Test(
            "--help works on every command and says how to use it", arguments: ["status", "up", "down", "verify", "plan", "new", "lint", "baseline"])
        func help(command: String) async throws {
            let folder = try MigrationFolder()
            defer { folder.delete() }
            let outcome = try await TaskMigrateProcess.run([command, "--help"], databaseURL: "postgresql://nowhere.invalid/none", folder: folder)
            #expect(outcome.status == 0)
            #expect(outcome.stdout.contains("Usage: taskmigrate \(command)"))
        }

        @Test("--help lists every exit code, a run stopped by a signal's included")
        func helpListsExitCodes() async throws {
            let folder = try MigrationFolder()
            defer { folder.delete() }
            let outcome = try await TaskMigrateProcess.run(["--help"], databaseURL: "postgresql://nowhere.invalid/none", folder: folder)
            let help = outcome.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            for code in ["0 ok", "1 failed", "2 usage", "3 cannot connect", "4 permission denied", "5 conflict", "6 input rejected"] {
                #expect(help.contains(code), "\(code): \(help)")
            }
            #expect(help.contains("130/143/129 stopped by Ctrl-C/SIGTERM/SIGHUP"), "\(help)")
        }

        @Test(
            "usage errors exit 2 with one line pointing at --help",
            arguments: [
                ["up", "--frobnicate"], ["sideways"], ["up", "--to", "x"], ["new"], ["status", "--lock-timeout", "soon"],
                ["up", "--lock-wait", "5 parsecs"],
            ])
        func usage(arguments: [String]) async throws {
            let folder = try MigrationFolder()
            defer { folder.delete() }
            let outcome = try await TaskMigrateProcess.run(arguments, databaseURL: "postgresql://nowhere.invalid/none", folder: folder)
            #expect(outcome.status == 2)
            #expect(outcome.stderr.hasPrefix("taskmigrate: "))
        }

        @Test("an unreachable database exits 3 and never prints the password")
        func cannotConnect() async throws {
            let folder = try MigrationFolder(["0001_a.sql": "SELECT 1;\n"])
            defer { folder.delete() }
            let outcome = try await TaskMigrateProcess.run(
                ["status"], databaseURL: "postgresql://someone:hunter2@127.0.0.1:1/none?connect_timeout=2", folder: folder)
            #expect(outcome.status == 3)
            #expect(outcome.stderr.contains("cannot connect"))
            #expect(!outcome.stderr.contains("hunter2"))
        }

        @Test("new NAME writes the next numbered file with up and down sections")
        func newFile() async throws {
            let folder = try MigrationFolder(["0007_existing.sql": "SELECT 1;\n"])
            defer { folder.delete() }
            let outcome = try await TaskMigrateProcess.run(["new", "Add due-date reminders"], databaseURL: "", folder: folder)
            #expect(outcome.status == 0)
            #expect(outcome.stdout.hasSuffix("0008_add_due_date_reminders.sql\n"))
            let text = try String(contentsOfFile: folder.path + "/0008_add_due_date_reminders.sql", encoding: .utf8)
            #expect(text.contains("-- migrate:up") && text.contains("-- migrate:down"))
        }

        @Test("new NAME that cannot be written says why, in the system's words, and leaves nothing")
        func newFileRefused() async throws {
            let folder = try MigrationFolder(["0007_existing.sql": "SELECT 1;\n"])
            defer { folder.delete() }
            let name = String(repeating: "a", count: 300)
            let outcome = try await TaskMigrateProcess.run(["new", name], databaseURL: "", folder: folder)
            #expect(outcome.status == 6)
            #expect(outcome.stderr.hasSuffix("0008_\(name).sql: cannot write the file: File name too long\n"), "\(outcome.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["0007_existing.sql"])
        }

        @Test("lint's lines show escape sequences and bidi overrides from a file's quoted names escaped, never raw; --json keeps them exact")
        func lintEscapes() async throws {
            let folder = try MigrationFolder(["0001_hostile.sql": "CREATE INDEX i ON \"ta\u{1B}]0;owned\u{7}ble\u{202E}\" (x);\n"])
            defer { folder.delete() }
            let text = try await TaskMigrateProcess.run(["lint", "--offline"], databaseURL: "", folder: folder)
            #expect(text.status == 6)
            #expect(!text.stdout.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x202E }, "\(text.stdout)")
            #expect(text.stdout.contains(#"table ta\x1B]0;owned\x07ble<U+202E> blocks its writes"#), "\(text.stdout)")
            let json = try await TaskMigrateProcess.run(["lint", "--offline", "--json"], databaseURL: "", folder: folder)
            #expect(json.stdout.contains(#"ta\u001b]0;owned\u0007ble\#u{202E}"#), "\(json.stdout)")
        }

        @Test("lint exits 6 on a hazard not allowed, 0 when clean; the project's migrations are clean")
        func lintExitCodes() async throws {
            let folder = try MigrationFolder(["0001_drop.sql": "ALTER TABLE tasks DROP COLUMN notes;\n"])
            defer { folder.delete() }
            let flagged = try await TaskMigrateProcess.run(["lint"], databaseURL: "", folder: folder)
            #expect(flagged.status == 6)
            #expect(flagged.stdout.contains("0001_drop.sql:1:19: drop-column: "))
            let project = try await TaskMigrateProcess.run(
                ["lint", "--json", "--dir", MigrationFolder.packageRoot + "/migrations"], databaseURL: "", folder: folder)
            #expect(project.status == 0, "\(project.stdout)")
            // Only the reviewed exceptions (`-- lint:allow`), each in the file that allows it.
            let findings = try LintDocument(project.stdout).findings
            let refused = findings.filter { !$0.allowed }.count
            #expect(refused == 0, "\(project.stdout)")
            let allowed = Set(findings.map { URL(fileURLWithPath: $0.file).lastPathComponent + " " + $0.rule })
            #expect(
                allowed == [
                    "0033_no_statistics_of_tenant_text.sql alter-column-type",
                    "0034_ids_drawn_not_chosen.sql create-index-not-concurrently",
                ])
        }

        @Test("lint reports every file of a folder, unreadable ones included, then fails")
        func lintWholeFolder() async throws {
            let folder = try MigrationFolder([
                "0001_drop.sql": "ALTER TABLE tasks DROP COLUMN notes;\n",
                "0002_broken.sql": "-- migrate:sideways\nSELECT 1;\n",
                "0003_rename.sql": "ALTER TABLE tasks RENAME COLUMN notes TO body;\n",
            ])
            defer { folder.delete() }
            let outcome = try await TaskMigrateProcess.run(["lint"], databaseURL: "", folder: folder)
            #expect(outcome.status == 6)
            let lines = outcome.stdout.split(separator: "\n")
            #expect(lines.count == 3, "\(outcome.stdout)")
            #expect(lines.contains { $0.contains("0002_broken.sql:1:1: invalid-file: unknown directive") })
            #expect(lines.contains { $0.contains("0001_drop.sql:1:19: drop-column: ") })
            #expect(lines.contains { $0.contains("0003_rename.sql:1:19: rename-column: ") })
            #expect(outcome.stderr.contains("3 files, 1 could not be read, 3 hazards not allowed"))
        }

        @Test("lint --json prints one document with file, line, column, rule, message for every finding")
        func lintJSON() async throws {
            let folder = try MigrationFolder([
                "0001_index.sql": "-- lint:allow create-index-not-concurrently (tiny)\nCREATE INDEX t_x ON t (x);\n",
                "0002_role.sql": "-- migrate:up\nRESET ROLE;\n",
            ])
            defer { folder.delete() }
            let outcome = try await TaskMigrateProcess.run(["lint", "--json"], databaseURL: "", folder: folder)
            #expect(outcome.status == 6)
            let document = try LintDocument(outcome.stdout)
            #expect(document.files == 2 && document.refused == 1)
            #expect(document.findings.count == 2)
            let role = try #require(document.findings.first { $0.rule == "role-changed" })
            #expect(role.file.hasSuffix("0002_role.sql") && role.line == 2 && role.column == 1 && !role.allowed)
            #expect(role.message.contains("taskbase_owner"))
            #expect(document.findings.contains { $0.rule == "create-index-not-concurrently" && $0.allowed })
        }

        @Test("lint --explain RULE says what it locks or breaks, for how long, and the safe way; --help lists every rule")
        func lintExplain() async throws {
            let folder = try MigrationFolder()
            defer { folder.delete() }
            let explained = try await TaskMigrateProcess.run(["lint", "--explain", "set-not-null"], databaseURL: "", folder: folder)
            #expect(explained.status == 0)
            for part in ["What happens:", "For how long:", "Instead:", "ACCESS EXCLUSIVE", "-- lint:allow set-not-null"] {
                #expect(explained.stdout.contains(part))
            }
            let unknown = try await TaskMigrateProcess.run(["lint", "--explain", "no-such-rule"], databaseURL: "", folder: folder)
            #expect(unknown.status == 2)
            #expect(unknown.stderr.contains("security-definer-search-path"))
            let help = try await TaskMigrateProcess.run(["lint", "--help"], databaseURL: "", folder: folder)
            for rule in LintRule.allCases { #expect(help.stdout.contains("\(rule.rawValue): "), "\(rule)") }
        }
    }
}

extension LintDocument {
    /// `taskmigrate lint --json`'s output, decoded.
    init(_ text: String) throws {
        self = try JSONDecoder().decode(LintDocument.self, from: Data(text.utf8))
    }
}
