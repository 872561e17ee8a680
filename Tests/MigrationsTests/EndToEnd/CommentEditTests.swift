import Foundation
import Migrations
import PGStore
import TaskbaseTestSupport
import Testing

extension EndToEnd {
    @Suite("A reviewed comment-only edit of an applied migration")
    struct CommentEditTests {
        private let original = "-- Items (see the notes).\n-- migrate:up\nCREATE TABLE items (id int);\n-- migrate:down\nDROP TABLE items;\n"
        private let edited = "-- Items (see docs/design.md).\n-- migrate:up\nCREATE TABLE items (id int);\n-- migrate:down\nDROP TABLE items;\n"

        @Test("is drift until listed; once listed verify accepts it and up records the new checksum, and an edit of SQL stays drift")
        func lifecycle() async throws {
            let folder = try MigrationFolder(["0001_items.sql": original])
            defer { folder.delete() }
            try await TestDatabase.with(migrated: false, purpose: "migrations") { database in
                let first = try await TaskMigrateProcess.run(["up"], databaseURL: database.url, folder: folder)
                #expect(first.status == 0, "\(first.stderr)")
                let old = try folder.directory.load()[0]

                try folder.write("0001_items.sql", edited)
                let new = try folder.directory.load()[0]
                let drift = try await TaskMigrateProcess.run(["verify"], databaseURL: database.url, folder: folder)
                #expect(drift.status == 6)
                let line = "1 \(old.checksum) \(new.statementsFingerprint)"
                #expect(drift.stderr.contains(line), "\(drift.stderr)")

                try folder.write(SupersededChecksums.fileName, "# comment edit, reviewed\n\(line)\n")
                let verify = try await TaskMigrateProcess.run(["verify"], databaseURL: database.url, folder: folder)
                #expect(verify.status == 0, "\(verify.stderr)")
                #expect(try await recordedChecksum(database) == old.checksum)

                let up = try await TaskMigrateProcess.run(["up"], databaseURL: database.url, folder: folder)
                #expect(up.status == 0, "\(up.stderr)")
                #expect(up.stderr.contains("0001_items.sql: recorded checksum \(new.checksum.prefix(12))"), "\(up.stderr)")
                #expect(try await recordedChecksum(database) == new.checksum)
                let again = try await TaskMigrateProcess.run(["up"], databaseURL: database.url, folder: folder)
                #expect(again.status == 0 && !again.stderr.contains("recorded checksum"), "\(again.stderr)")

                try folder.write("0001_items.sql", edited.replacingOccurrences(of: "id int", with: "id bigint"))
                let sqlEdit = try await TaskMigrateProcess.run(["up"], databaseURL: database.url, folder: folder)
                #expect(sqlEdit.status == 6)
                #expect(sqlEdit.stderr.contains("superseded-checksums:2"), "\(sqlEdit.stderr)")
                #expect(try await recordedChecksum(database) == new.checksum)
            }
        }

        @Test("every line of the project's superseded-checksums names a version of the file in git whose statements are the file's now")
        func projectListIsHistory() async throws {
            let root = MigrationFolder.packageRoot
            let listPath = root + "/migrations/" + SupersededChecksums.fileName
            guard let text = try? String(contentsOfFile: listPath, encoding: .utf8) else { return }
            guard FileManager.default.fileExists(atPath: root + "/.git") else { return }
            let files = try MigrationDirectory(path: root + "/migrations").load()
            for entry in try SupersededChecksums.parse(text, path: listPath).entries {
                let file = try #require(files.first { $0.version == entry.version })
                var found = false
                for commit in try await git(["log", "--format=%H", "--", "migrations/" + file.fileName], root: root).split(separator: "\n") {
                    guard let text = try? await git(["show", "\(commit):migrations/\(file.fileName)"], root: root) else { continue }
                    let earlier = try MigrationFile.parse(fileName: file.fileName, path: file.path, bytes: Array(text.utf8))
                    if earlier.checksum == entry.checksum {
                        #expect(earlier.statementsFingerprint == file.statementsFingerprint, "\(file.fileName) at \(commit)")
                        found = true
                        break
                    }
                }
                #expect(found, "line \(entry.line): no commit holds \(file.fileName) with checksum \(entry.checksum)")
            }
        }

        private func recordedChecksum(_ database: TestDatabase) async throws -> String? {
            try await database.scalar("SELECT checksum FROM schema_migrations WHERE version = 1")
        }

        private func git(_ arguments: [String], root: String) async throws -> String {
            let run = try await BuiltProgram.run(
                URL(fileURLWithPath: "/usr/bin/env"), arguments: ["git", "-C", root] + arguments,
                environment: ProcessInfo.processInfo.environment)
            struct GitFailed: Error { var message: String }
            guard run.exitCode == 0 else { throw GitFailed(message: run.standardError) }
            return run.standardOutput
        }
    }
}
