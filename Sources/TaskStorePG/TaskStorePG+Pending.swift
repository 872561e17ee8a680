import Foundation
import TaskCore
struct NotYet: Error {}
extension TaskStorePG: TaskChangeFeed, TaskImportPort {
    public func changes(in team: TeamKey, access: AccessRequirement) async throws -> TaskChangeStream { throw NotYet() }
    public func importTasks<Batches: AsyncSequence & Sendable>(
        into team: TeamKey, policy: ImportConflictPolicy, dryRun: Bool, batches: Batches, access: AccessRequirement, at time: Date
    ) async throws -> ImportSummary where Batches.Element == [TaskImportDraft] { throw NotYet() }
}
