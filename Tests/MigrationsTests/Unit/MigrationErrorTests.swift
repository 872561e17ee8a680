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
                == "0004_index.sql: could not get its locks within lock_timeout 5000ms in 3 tries; the blocking session could not be identified; "
                + "the INVALID index tasks_category_idx is left behind (it serves no query); run up again when the table is quieter, "
                + "which drops and rebuilds it (or drop it yourself: DROP INDEX CONCURRENTLY tasks_category_idx)")
    }
}
