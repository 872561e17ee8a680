import Foundation

/// Storage of tasks and their history. Every call carries the `AccessRequirement` so a store
/// can check access in the same query as the work: it gathers `AccessFacts` and calls
/// `access.verify(_:subject:)` (subject "team KEY" or "task KEY-N"), deciding nothing itself.
/// Assignees are judged by `AssigneeRule`, edits applied by `TaskItem.applying`, and list
/// semantics are `TaskQuery.matches` / `orders`. Every change records a history entry.
public protocol TaskRepository: Sendable {
    /// Creates a task with the team's next number (no gaps, no duplicates under concurrency);
    /// an external id already used in the team is `alreadyExists`.
    func createTask(in team: TeamKey, draft: TaskDraft, access: AccessRequirement, at time: Date) async throws -> TaskItem
    /// The task with this key; `notFound` when missing or hidden from the actor.
    func task(_ key: TaskKey, access: AccessRequirement) async throws -> TaskItem
    /// Applies `changes` if the task is still at `expectedVersion` (nil: whatever version);
    /// otherwise `conflict` with the current version and nothing written. A change that
    /// alters nothing returns the task as it was.
    func updateTask(_ key: TaskKey, expectedVersion: Int64?, changes: TaskChanges, access: AccessRequirement, at time: Date) async throws -> TaskItem
    /// Deletes the task (keeping its history) if it is still at `expectedVersion` (nil: whatever version).
    func deleteTask(_ key: TaskKey, expectedVersion: Int64?, access: AccessRequirement, at time: Date) async throws
    /// One page of the team's tasks matching `query` as of `today`.
    func listTasks(in team: TeamKey, query: TaskQuery, today: CalendarDate, access: AccessRequirement) async throws -> TaskPage
    /// A page of the task's history, oldest first, found by key also when the task was deleted
    /// (`notFound` when it never existed, whatever the page).
    func history(of key: TaskKey, _ query: HistoryQuery, access: AccessRequirement) async throws -> HistoryPage
    /// How the team's tasks divide up as of `today`, counted in the store (one read however
    /// many tasks); gated like `listTasks`.
    func taskCounts(in team: TeamKey, today: CalendarDate, access: AccessRequirement) async throws -> TaskCounts
}
