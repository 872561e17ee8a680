import Foundation
import TaskCore

extension MemoryTaskStore: TaskRepository {
    /// Numbers the task inside the lock, so numbers are gapless under concurrent creators.
    public func createTask(in team: TeamKey, draft: TaskDraft, access: AccessRequirement, at time: Date) async throws -> TaskItem {
        try mutate { state in
            let gate = try state.gate(access, team: team, subject: "team \(team)")
            let assigneeID = try state.assigneeID(draft.assignee, in: gate.team, as: access.actor)
            let task = try state.insert(draft, assigneeID: assigneeID, in: gate.team, by: gate.actor.id, at: time, kind: .created)
            return (task, gate.team.id, [{ TaskChange(.created, task, sequence: $0) }])
        }
    }

    /// Looks the task up after the access check.
    public func task(_ key: TaskKey, access: AccessRequirement) async throws -> TaskItem {
        try state.withLock { try $0.gatedTask(key, access: access).1 }
    }

    /// Checks version, assignee and external id, then saves and announces the new version.
    public func updateTask(
        _ key: TaskKey, expectedVersion: Int64?, changes: TaskChanges, access: AccessRequirement, at time: Date
    ) async throws -> TaskItem {
        try mutate { state in
            let (gate, old) = try state.gatedTask(key, access: access)
            try Self.checkVersion(of: old, expected: expectedVersion)
            let assigneeID = try state.assigneeID(changes.assigneeToResolve, in: gate.team, as: access.actor)
            let new = old.applying(changes, assigneeID: assigneeID, by: gate.actor.id, at: time)
            guard new != old else { return (old, nil, []) }
            try state.checkExternalID(new.externalID, of: key, in: gate.team)
            state.save(new, replacing: old, kind: .updated)
            return (new, gate.team.id, [{ TaskChange(.updated, new, sequence: $0) }])
        }
    }

    /// Removes the task and logs the deletion; its history stays, reachable by the key, and
    /// ends with the deletion.
    public func deleteTask(_ key: TaskKey, expectedVersion: Int64?, access: AccessRequirement, at time: Date) async throws {
        try mutate { state in
            let (gate, task) = try state.gatedTask(key, access: access)
            try Self.checkVersion(of: task, expected: expectedVersion)
            state.remove(task)
            let actor = gate.actor.id
            state.history[task.teamID, default: [:]][key.number, default: []].append(TaskHistoryEntry(deleting: task, by: actor, at: time))
            return (
                (), gate.team.id,
                [{ TaskChange(kind: .deleted, key: key, taskID: task.id, version: task.version, actorID: actor, at: time, sequence: $0) }]
            )
        }
    }

    /// Filters and orders with `TaskQuery` itself: the reference semantics.
    public func listTasks(in team: TeamKey, query: TaskQuery, today: CalendarDate, access: AccessRequirement) async throws -> TaskPage {
        try state.withLock { state in
            let gate = try state.gate(access, team: team, subject: "team \(team)")
            return query.page(of: state.tasks(of: gate.team.id).filter { query.matches($0, today: today) })
        }
    }

    /// Tallies the team's tasks with `TaskCounts` itself: the reference semantics.
    public func taskCounts(in team: TeamKey, today: CalendarDate, access: AccessRequirement) async throws -> TaskCounts {
        try state.withLock { state in
            let gate = try state.gate(access, team: team, subject: "team \(team)")
            return TaskCounts(tallying: state.tasks(of: gate.team.id), today: today)
        }
    }

    /// A page of the recorded entries, oldest first, also of a deleted task; a cursor's
    /// position is the number of entries before the page.
    public func history(of key: TaskKey, _ query: HistoryQuery, access: AccessRequirement) async throws -> HistoryPage {
        try state.withLock { state in
            let subject = "task \(key)"
            let gate = try state.gate(access, team: key.team, subject: subject)
            guard let entries = state.history[gate.team.id]?[key.number], !entries.isEmpty else { throw TaskError.notFound(what: subject) }
            let start = Int(clamping: min(max(query.after?.position ?? 0, 0), Int64(entries.count)))
            let end = min(start + query.limit, entries.count)
            return HistoryPage(entries: Array(entries[start..<end]), nextCursor: end < entries.count ? HistoryCursor(position: Int64(end)) : nil)
        }
    }

    private static func checkVersion(of task: TaskItem, expected: Int64?) throws {
        if let expected, expected != task.version {
            throw TaskError.conflict(what: "task \(task.key)", currentVersion: task.version)
        }
    }
}
