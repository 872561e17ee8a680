import Foundation

/// The bulk importer's way into storage: batches of validated drafts merged by external id,
/// all or nothing. Postgres COPYs the batches into a staging table and merges once.
public protocol TaskImportPort: Sendable {
    /// Merges every batch into team `team` under `policy` once `access` (write) is verified,
    /// which happens before the first batch is read.
    /// Atomic: on any error (a bad assignee, a duplicate external id in the input, `fail`
    /// meeting an existing id, a failing batch source) nothing is written. New tasks get
    /// gapless numbers; history records `imported` / `reimported`; the change log has the
    /// creations and updates in the order of their rows (one `bulk` entry above
    /// `TaskChange.bulkImportThreshold`). With `dryRun` the summary
    /// (and any error) is exactly what the import would give, and nothing is written.
    func importTasks<Batches: AsyncSequence & Sendable>(
        into team: TeamKey, policy: ImportConflictPolicy, dryRun: Bool, batches: Batches, access: AccessRequirement, at time: Date
    ) async throws -> ImportSummary where Batches.Element == [TaskImportDraft]
}
