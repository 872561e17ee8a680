import Foundation
import TaskCore

/// One change of `watch --json` and of the event stream's `data:` lines, printed as one compact
/// line: `sequence` (its place in the team's log, for `--after` and `Last-Event-ID`), `kind`
/// (created, updated, deleted), `key`, `task_id`, `version`, `actor` (email), `actor_id`, `at`,
/// and `title` (null for a deletion or a task gone since).
public struct ChangeDocument: Codable, Hashable, Sendable {
    /// The change's place in the team's change log.
    public var sequence: Int64
    /// created, updated or deleted.
    public var kind: String
    /// The task's key.
    public var key: String
    /// The task's id.
    public var taskID: Int64
    /// The version the change made.
    public var version: Int64
    /// Who made it, by email.
    public var actor: String
    /// When.
    public var at: Date
    /// The task's title now, or null.
    public var title: JSONNullable<String>
    /// Who made it, by user id (they may have left the team since); nil when the document does not say.
    public var actorID: Int64?

    enum CodingKeys: String, CodingKey {
        case sequence, kind, key, taskID = "task_id", version, actor, at, title, actorID = "actor_id"
    }

    /// The document of `change`, by the user named `actor`, of the task titled `title`.
    public init(_ change: TaskChange, actor: String, title: String?) {
        sequence = change.sequence
        kind = change.kind.rawValue
        key = change.key.description
        taskID = change.taskID.rawValue
        version = change.version
        self.actor = actor
        at = change.at
        self.title = JSONNullable(title)
        actorID = change.actorID.rawValue
    }

    /// The change this document describes, with the actor's id as the reader knows it.
    public func change(actorID: UserID) throws -> TaskChange {
        guard let kind = TaskChange.Kind(rawValue: kind) else { throw TaskError.validation(field: "kind", reason: "unknown change kind \(kind)") }
        return TaskChange(
            kind: kind, key: try TaskKey(parsing: key, field: "key"), taskID: TaskID(taskID), version: version, actorID: actorID, at: at,
            sequence: sequence)
    }
}

extension ChangeDocument {
    /// The document of `change` as `actor` sees it: the actor's email (from `directory`, which
    /// learns users it did not know) and the task's current title (nil for a deletion or a task
    /// deleted since). `taskctl watch` and the event stream both describe changes so.
    public static func describing(
        _ change: TaskChange, users directory: inout UserDirectory, service: TaskService, as actor: UserRef
    ) async throws -> ChangeDocument {
        try await directory.resolve([change.actorID], using: service, as: actor)
        var title: String?
        if change.kind != .deleted {
            do {
                title = try await service.task(change.key, as: actor).title
            } catch TaskError.notFound {
                title = nil
            }
        }
        return ChangeDocument(change, actor: directory.email(change.actorID), title: title)
    }
}
