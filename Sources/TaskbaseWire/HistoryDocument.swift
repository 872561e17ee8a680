import Foundation
import TaskCore

/// One history entry in JSON: `version`, `kind` (created, updated, imported, reimported, deleted),
/// `at`, `actor` (email), and `changes`, each with `field`, `old` and `new` (null when empty;
/// an assignee as an email).
public struct HistoryDocument: Codable, Hashable, Sendable {
    /// One field's change.
    public struct Change: Codable, Hashable, Sendable {
        /// The field's name, `status`.
        public var field: String
        /// The value before, or null.
        public var old: JSONNullable<String>
        /// The value after, or null.
        public var new: JSONNullable<String>
    }

    /// The version this entry made.
    public var version: Int64
    /// created, updated, imported, reimported or deleted.
    public var kind: String
    /// When.
    public var at: Date
    /// Who, by email.
    public var actor: String
    /// What changed.
    public var changes: [Change]

    /// The document of `entry`, naming users from `directory`.
    public init(_ entry: TaskHistoryEntry, users directory: UserDirectory) {
        version = entry.version
        kind = entry.kind.rawValue
        at = entry.at
        actor = directory.email(entry.actorID)
        changes = entry.changes.map { change in
            Change(
                field: change.field.rawValue,
                old: JSONNullable(Self.value(change.old, of: change.field, users: directory)),
                new: JSONNullable(Self.value(change.new, of: change.field, users: directory)))
        }
    }

    /// The user ids an entry names: its actor and any assignee before or after.
    public static func userIDs(in entry: TaskHistoryEntry) -> [UserID] {
        [entry.actorID]
            + entry.changes.filter { $0.field == .assignee }
            .flatMap { [$0.old, $0.new] }.compactMap { $0.flatMap(Int64.init).map(UserID.init) }
    }

    /// A recorded value as people read it: an assignee's id becomes their email.
    public static func value(_ text: String?, of field: TaskField, users directory: UserDirectory) -> String? {
        guard let text, !text.isEmpty else { return nil }
        if field == .assignee, let id = Int64(text) { return directory.email(UserID(id)) }
        return text
    }
}
