import TaskCore

/// The spellings other tools export for status and priority, translated to Taskbase's own
/// names before TaskCore parses them, so TaskCore stays the one judge of what is valid.
///
/// | field    | also accepted (ignoring case, spaces, hyphens and underscores)         |
/// |----------|------------------------------------------------------------------------|
/// | status   | open: To Do, Todo, New, Backlog, Not Started                           |
/// |          | in_progress: In Progress, Doing, Started, Active, WIP                  |
/// |          | done: Completed, Complete, Closed, Resolved, Finished                  |
/// | priority | urgent: Highest, Critical, Blocker, P0 · high: P1 · medium: Normal, P2 |
/// |          | low: Lowest, Trivial, P3 · none: empty, P4                              |
///
/// An empty status is `open`; an empty priority is `none`.
public enum ImportSpellings {
    /// The status a cell names, or TaskCore's validation error (field `status`).
    public static func status(_ text: String) throws -> TaskStatus {
        if let known = statusSynonyms[key(text)] { return known }
        return try TaskStatus(parsing: text)
    }

    /// The priority a cell names, or TaskCore's validation error (field `priority`).
    public static func priority(_ text: String) throws -> TaskPriority {
        if let known = prioritySynonyms[key(text)] { return known }
        return try TaskPriority(parsing: text)
    }

    /// The value whose raw name `bytes` spell exactly (`in_progress`, `high`): the common case,
    /// decided without making a `String`; nil when the cell needs the tolerant parse.
    static func exactValue<Value: NamedValue>(_ bytes: UnsafeBufferPointer<UInt8>, as type: Value.Type) -> Value? {
        for value in Value.allCases where value.rawValue.utf8.elementsEqual(bytes) { return value }
        return nil
    }

    /// A spelling reduced for lookup: lowercased, without spaces, hyphens and underscores.
    private static func key(_ text: String) -> String {
        String(text.lowercased().unicodeScalars.filter { !$0.properties.isWhitespace && $0 != "-" && $0 != "_" })
    }

    private static let statusSynonyms: [String: TaskStatus] = [
        "": .open, "todo": .open, "new": .open, "backlog": .open, "notstarted": .open,
        "inprogress": .inProgress, "doing": .inProgress, "started": .inProgress, "active": .inProgress, "wip": .inProgress,
        "completed": .done, "complete": .done, "closed": .done, "resolved": .done, "finished": .done,
    ]

    private static let prioritySynonyms: [String: TaskPriority] = [
        "": TaskPriority.none, "p4": TaskPriority.none,
        "highest": .urgent, "critical": .urgent, "blocker": .urgent, "p0": .urgent, "p1": .high,
        "normal": .medium, "p2": .medium, "lowest": .low, "trivial": .low, "p3": .low,
    ]
}
