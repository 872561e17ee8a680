import Foundation
import Testing

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

        @Test("lint exits 6 on a hazard not allowed, 0 when clean; the project's migrations are clean")
        func lintExitCodes() async throws {
            let folder = try MigrationFolder(["0001_drop.sql": "ALTER TABLE tasks DROP COLUMN notes;\n"])
            defer { folder.delete() }
            let flagged = try await TaskMigrateProcess.run(["lint"], databaseURL: "", folder: folder)
            #expect(flagged.status == 6)
            #expect(flagged.stdout.contains("0001_drop.sql:1: drop-column: "))
            let project = try await TaskMigrateProcess.run(
                ["lint", "--dir", MigrationFolder.packageRoot + "/migrations"], databaseURL: "", folder: folder)
            #expect(project.status == 0, "\(project.stdout)")
        }
    }
}
