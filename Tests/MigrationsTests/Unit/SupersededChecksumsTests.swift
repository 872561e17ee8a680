import Foundation
import Migrations
import Testing

@Suite("Reviewed comment-only edits of applied migrations")
struct SupersededChecksumsTests {
    private let original = "-- The items.\n-- migrate:up\nCREATE TABLE items (id int);\n-- migrate:down\nDROP TABLE items;\n"
    private let commentEdited =
        "-- The items, one per row.\n\n-- migrate:up\nCREATE TABLE items (id int); -- the key\n-- migrate:down\nDROP TABLE items;\n"

    private func record(_ file: MigrationFile, checksum: String) -> AppliedMigration {
        AppliedMigration(
            version: file.version, name: file.name, checksum: checksum, appliedAt: Date(timeIntervalSince1970: 0),
            executionMilliseconds: 1, appliedBy: "test", toolVersion: "test", isBaseline: false)
    }

    @Test("an edit of comments or spacing keeps the statements' fingerprint; an edit of SQL, a quote or a directive changes it")
    func fingerprint() throws {
        let before = try migration(original).statementsFingerprint
        #expect(try migration(commentEdited).statementsFingerprint == before)
        #expect(try migration(original).checksum != migration(commentEdited).checksum)
        let changes = [
            original.replacingOccurrences(of: "id int", with: "id bigint"),
            original.replacingOccurrences(of: "items (id", with: "\"items\" (id"),
            original.replacingOccurrences(of: "-- migrate:down\nDROP TABLE items;\n", with: ""),
            "-- migrate:no-transaction\n" + original,
        ]
        for changed in changes {
            #expect(try migration(changed).statementsFingerprint != before, "\(changed)")
        }
    }

    @Test("a history row holding a superseded checksum is applied, and marked for up to record the file's checksum")
    func acceptedInThePlan() throws {
        let old = try migration(original)
        var edited = try migration(commentEdited)
        let drift = MigrationPlan(files: [edited], history: [record(old, checksum: old.checksum)])
        #expect(drift.entries.map(\.state) == [.changed])

        edited.supersededChecksums = [old.checksum]
        let plan = MigrationPlan(files: [edited], history: [record(old, checksum: old.checksum)])
        #expect(plan.entries.map(\.state) == [.applied])
        #expect(plan.entries.map(\.recordsSupersededChecksum) == [true])
        try plan.verify()

        let current = MigrationPlan(files: [edited], history: [record(edited, checksum: edited.checksum)])
        #expect(current.entries.map(\.recordsSupersededChecksum) == [false])
        let other = MigrationPlan(files: [edited], history: [record(old, checksum: String(repeating: "0", count: 64))])
        #expect(other.entries.map(\.state) == [.changed])
    }

    @Test("the drift message gives the exact line that accepts the edit")
    func driftNamesTheLine() throws {
        let old = try migration(original)
        let edited = try migration(commentEdited)
        let plan = MigrationPlan(files: [edited], history: [record(old, checksum: old.checksum)])
        #expect {
            try plan.verify()
        } throws: { error in
            String(describing: error).contains(
                "add this line to migrations/superseded-checksums instead: 1 \(old.checksum) \(edited.statementsFingerprint)")
        }
    }

    @Test("a folder's superseded-checksums file is read with the migrations and fills in each file's accepted checksums")
    func loadedWithTheFolder() throws {
        let old = try migration(original)
        let edited = try migration(commentEdited)
        let folder = try MigrationFolder([
            "0001_test.sql": commentEdited,
            SupersededChecksums.fileName: "# reviewed in #19\n\n1 \(old.checksum) \(edited.statementsFingerprint)  comment on items\n",
        ])
        defer { folder.delete() }
        let files = try folder.directory.load()
        #expect(files.map(\.supersededChecksums) == [[old.checksum]])
    }

    @Test("a line whose fingerprint is not the file's is refused at load, naming its line: the edit changed SQL")
    func sqlEditRefused() throws {
        let old = try migration(original)
        let edited = try migration(commentEdited)
        let folder = try MigrationFolder([
            "0001_test.sql": commentEdited.replacingOccurrences(of: "id int", with: "id bigint"),
            SupersededChecksums.fileName: "1 \(old.checksum) \(edited.statementsFingerprint)\n",
        ])
        defer { folder.delete() }
        #expect {
            try folder.directory.load()
        } throws: { error in
            let text = String(describing: error)
            return text.contains("superseded-checksums:1") && text.contains("0001_test.sql's statements are no longer the ones")
        }
    }

    @Test(
        "malformed lines and lines for no file are refused, naming the line",
        arguments: [
            ("1 abc", "expected VERSION CHECKSUM FINGERPRINT"),
            ("x \(String(repeating: "a", count: 64)) \(String(repeating: "a", count: 64))", "expected VERSION CHECKSUM FINGERPRINT"),
            ("1 \(String(repeating: "A", count: 64)) \(String(repeating: "a", count: 64))", "is not a SHA-256 in lowercase hex"),
            ("7 \(String(repeating: "a", count: 64)) \(String(repeating: "a", count: 64))", "no migration file has version 7"),
        ])
    func malformed(line: String, message: String) throws {
        let folder = try MigrationFolder(["0001_test.sql": original, SupersededChecksums.fileName: "# header\n" + line + "\n"])
        defer { folder.delete() }
        #expect {
            try folder.directory.load()
        } throws: { error in
            let text = String(describing: error)
            return text.contains("superseded-checksums:2") && text.contains(message)
        }
    }
}
