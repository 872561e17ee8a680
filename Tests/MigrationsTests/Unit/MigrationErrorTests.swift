import Migrations
import Testing

@Suite("Migration errors as people read them")
struct MigrationErrorTests {
    @Test("a lock timeout that leaves an INVALID index says the next up rebuilds it, as a failed build's message does")
    func lockTimeoutLeftover() {
        let error = MigrationError.lockTimeout(
            file: "0004_index.sql", attempts: 3, lockTimeout: .seconds(5), blocker: nil, leftoverIndex: "tasks_category_idx")
        #expect(
            error.description
                == "0004_index.sql: could not get its locks within lock_timeout 5s in 3 tries; the blocking session could not be identified; "
                + "the INVALID index tasks_category_idx is left behind (it serves no query); run up again when the table is quieter, "
                + "which drops and rebuilds it (or drop it yourself: DROP INDEX CONCURRENTLY tasks_category_idx)")
    }

    @Test("waits and timeouts read as the programs write them elsewhere: 5s, 2min, 250ms, never 5000ms")
    func durationsAsElsewhere() {
        #expect(MigrationError.migrationLockBusy(waited: .seconds(120), holder: nil).description.contains("lock for 2min;"))
        let running = MigrationError.indexBuildStillRunning(file: "0004_index.sql", index: "i", pid: 7, waited: .milliseconds(250))
        #expect(running.description.contains("after waiting 250ms;"))
    }
}
