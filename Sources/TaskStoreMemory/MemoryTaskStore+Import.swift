import Foundation
import TaskCore

extension MemoryTaskStore: TaskImportPort {
    /// Refuses an external id that appears twice, naming its first and last row (1-based), as
    /// Postgres names its staged rows.
    static func refuseDuplicates(_ drafts: [TaskImportDraft]) throws {
        var rows: [String: (first: Int, last: Int)] = [:]
        for (index, draft) in drafts.enumerated() {
            rows[draft.externalID, default: (index + 1, index + 1)].last = index + 1
        }
        guard let (externalID, place) = rows.filter({ $0.value.first != $0.value.last }).min(by: { $0.value.first < $1.value.first }) else {
            return
        }
        throw TaskError.externalIDRepeated(externalID, rows: place.first, and: place.last)
    }

    /// Refuses a forbidden import before reading its source; reads every batch, then merges on a
    /// copy of the state that replaces it only on success (and never in a dry run).
    public func importTasks<Batches: AsyncSequence & Sendable>(
        into team: TeamKey, policy: ImportConflictPolicy, dryRun: Bool, batches: Batches, access: AccessRequirement, at time: Date
    ) async throws -> ImportSummary where Batches.Element == [TaskImportDraft] {
        _ = try state.withLock { try $0.gate(access, team: team, subject: "team \(team)") }
        var drafts: [TaskImportDraft] = []
        for try await batch in batches { drafts += batch }
        return try mutate { state in
            let gate = try state.gate(access, team: team, subject: "team \(team)")
            var working = state
            var summary = ImportSummary()
            var changes: [(Int64) -> TaskChange] = []
            // Every row's assignee is judged before any row's external id, as Postgres judges
            // the staged rows: the refusal of a mixed file is the same in both stores.
            let assigneeIDs = try drafts.map { try working.assigneeID($0.draft.assignee, in: gate.team, as: access.actor) }
            try Self.refuseDuplicates(drafts)
            for (item, assigneeID) in zip(drafts, assigneeIDs) {
                guard let key = working.taskKeysByExternalID[gate.team.id]?[item.externalID], let old = working.tasks[key] else {
                    let task = try working.insert(item.draft, assigneeID: assigneeID, in: gate.team, by: gate.actor.id, at: time, kind: .imported)
                    summary.inserted += 1
                    changes.append { TaskChange(.created, task, sequence: $0) }
                    continue
                }
                switch policy {
                case .fail:
                    throw TaskError.alreadyExists(what: "external id \"\(item.externalID)\" in team \(team) (task \(key))")
                case .skip:
                    summary.skipped += 1
                case .update:
                    let new = old.applying(
                        TaskChanges(replacingWith: item.draft, keeping: item.keeps), assigneeID: assigneeID, by: gate.actor.id, at: time)
                    if new == old {
                        summary.unchanged += 1
                    } else {
                        working.save(new, replacing: old, kind: .reimported)
                        summary.updated += 1
                        changes.append { TaskChange(.updated, new, sequence: $0) }
                    }
                }
            }
            if dryRun { return (summary, nil, []) }
            state = working
            return (summary, gate.team.id, changes)
        }
    }
}
