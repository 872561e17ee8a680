import Foundation
import Migrations
import Testing

@Suite("Migration plan and verification")
struct MigrationPlanTests {
    private let files = [
        try! migration("CREATE TABLE a (id int);", fileName: "0001_a.sql"),
        try! migration("CREATE TABLE b (id int);", fileName: "0002_b.sql"),
        try! migration("CREATE TABLE c (id int);", fileName: "0003_c.sql"),
    ]

    private func record(_ file: MigrationFile, checksum: String? = nil) -> AppliedMigration {
        AppliedMigration(
            version: file.version, name: file.name, checksum: checksum ?? file.checksum, appliedAt: Date(timeIntervalSince1970: 0),
            executionMilliseconds: 1, appliedBy: "test", toolVersion: "test", isBaseline: false)
    }

    @Test("an empty history makes every file pending")
    func emptyHistory() throws {
        let plan = MigrationPlan(files: files, history: [])
        #expect(plan.entries.map(\.state) == [.pending, .pending, .pending])
        #expect(plan.pending.map(\.version) == [1, 2, 3])
        #expect(plan.currentVersion == nil)
        try plan.verify()
    }

    @Test("applied files are applied, newer ones pending")
    func partlyApplied() throws {
        let plan = MigrationPlan(files: files, history: [record(files[0]), record(files[1])])
        #expect(plan.entries.map(\.state) == [.applied, .applied, .pending])
        #expect(plan.currentVersion == 2)
        try plan.verify()
    }

    @Test("a changed, a missing and an out-of-order file are each drift naming the file")
    func drift() {
        let gone = AppliedMigration(
            version: 4, name: "d", checksum: "00", appliedAt: Date(timeIntervalSince1970: 0),
            executionMilliseconds: 1, appliedBy: "test", toolVersion: "test", isBaseline: false)
        let plan = MigrationPlan(files: files, history: [record(files[0], checksum: "ff"), record(files[2]), gone])
        #expect(plan.entries.map(\.state) == [.changed, .outOfOrder, .applied, .missing])
        #expect(plan.pending.isEmpty)
        #expect {
            try plan.verify()
        } throws: { error in
            let text = String(describing: error)
            return text.contains("migrations/0001_a.sql: changed after it was applied")
                && text.contains("migrations/0002_b.sql: not applied, yet numbered below 4")
                && text.contains("0004_d.sql: applied at 1970-01-01T00:00:00Z but the file is gone")
        }
    }

    @Test("applied migrations above a folder that holds every older one are a newer release's (ahead), not drift; a gap below is")
    func ahead() throws {
        func gone(_ version: Int64) -> AppliedMigration {
            AppliedMigration(
                version: version, name: "later", checksum: "00", appliedAt: Date(timeIntervalSince1970: 0),
                executionMilliseconds: 1, appliedBy: "test", toolVersion: "test", isBaseline: false)
        }
        // The programs rolled back to a release whose folder ends at 3: 4 and 5 are ahead.
        let rolledBack = MigrationPlan(files: files, history: files.map { record($0) } + [gone(4), gone(5)])
        #expect(rolledBack.entries.map(\.state) == [.applied, .applied, .applied, .ahead, .ahead])
        #expect(rolledBack.ahead.map(\.version) == [4, 5] && rolledBack.pending.isEmpty && rolledBack.currentVersion == 5)
        // Only when asked: a folder that lost its newest files, or a wrong --dir, looks the same.
        #expect(throws: MigrationDriftError.self) { try rolledBack.verify() }
        try rolledBack.verify(allowingNewer: true)
        // A file gone below the folder's newest is drift, and then so is every one above.
        let holed = MigrationPlan(files: [files[0], files[2]], history: files.map { record($0) } + [gone(4)])
        #expect(holed.entries.map(\.state) == [.applied, .missing, .applied, .missing])
        #expect(throws: MigrationDriftError.self) { try holed.verify() }
        // An empty folder (a wrong --dir) is no release: every applied migration is missing.
        #expect(MigrationPlan(files: [], history: [record(files[0])]).entries.map(\.state) == [.missing])
    }

    @Test("a renamed applied file counts as changed")
    func renamed() {
        let renamed = try! migration("CREATE TABLE a (id int);", fileName: "0001_a_renamed.sql")
        let plan = MigrationPlan(files: [renamed], history: [record(files[0])])
        #expect(plan.entries.map(\.state) == [.changed])
    }
}
