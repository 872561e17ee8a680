/// The session that holds a lock another session waits for: who it is, what it holds and
/// what it is doing, from `pg_locks` and `pg_stat_activity`.
public struct LockBlocker: Sendable, Equatable, CustomStringConvertible {
    /// The blocking server process.
    public var pid: Int32
    /// Its database role.
    public var user: String
    /// Its `application_name`.
    public var application: String
    /// `active`, `idle in transaction`, ...
    public var state: String
    /// The start of its current or last statement (empty when not visible to us).
    public var query: String
    /// The lock mode the waiting session asked for.
    public var wantedMode: String
    /// The lock modes the blocker holds on the same object.
    public var heldModes: String
    /// The object: a table name, or the lock type for other locks.
    public var object: String
    /// How long the blocker's transaction has been open, in seconds.
    public var transactionSeconds: Double

    /// `pid 123 (user x, application y, idle in transaction for 12s) holds AccessExclusiveLock
    /// on tasks; we need RowExclusiveLock; its last statement: ...`.
    public var description: String {
        var text = "pid \(pid) (user \(user.isEmpty ? "?" : user)"
        if !application.isEmpty { text += ", application \(application)" }
        if !state.isEmpty { text += ", \(state)" }
        text += " for \(Int(transactionSeconds.rounded()))s) holding \(heldModes.isEmpty ? "a conflicting lock" : heldModes) on \(object)"
        if !wantedMode.isEmpty { text += ", which we need in \(wantedMode)" }
        if !query.isEmpty { text += "; its last statement: \(query)" }
        return text
    }

    /// The first session blocking `pid`, if it waits for a lock now.
    public static func find(blocking pid: Int32, on connection: PGConnection) async throws -> LockBlocker? {
        try await find(waiting: "w.pid = \(pid)", on: connection)
    }

    /// The first session blocking a session whose `application_name` is `application` (a
    /// name one process gives its connections), if one of them waits for a lock now. Unlike
    /// a backend pid, the name is known behind PgBouncer and for a pooled connection.
    public static func find(blockingApplication application: String, on connection: PGConnection) async throws -> LockBlocker? {
        try await find(
            waiting: "w.pid IN (SELECT a.pid FROM pg_catalog.pg_stat_activity a WHERE a.application_name = \(application))", on: connection)
    }

    private static func find(waiting condition: PGQuery, on connection: PGConnection) async throws -> LockBlocker? {
        let rows = try await connection.query(
            """
            SELECT b.pid,
                   coalesce(b.usename::text, '') AS usename,
                   coalesce(b.application_name, '') AS application_name,
                   coalesce(b.state, '') AS state,
                   coalesce(regexp_replace(left(b.query, 160), '\\s+', ' ', 'g'), '') AS query,
                   w.mode AS wanted_mode,
                   coalesce(w.relation::regclass::text, w.locktype) AS object,
                   coalesce((SELECT string_agg(DISTINCT h.mode, ', ') FROM pg_catalog.pg_locks h
                              WHERE h.pid = b.pid AND h.granted AND h.locktype = w.locktype
                                AND h.relation IS NOT DISTINCT FROM w.relation
                                AND h.transactionid IS NOT DISTINCT FROM w.transactionid), '') AS held_modes,
                   coalesce(extract(epoch FROM clock_timestamp() - b.xact_start), 0)::float8 AS transaction_seconds
              FROM pg_catalog.pg_locks w
             CROSS JOIN LATERAL unnest(pg_catalog.pg_blocking_pids(w.pid)) AS blocking(pid)
              JOIN pg_catalog.pg_stat_activity b ON b.pid = blocking.pid
             WHERE \(condition) AND NOT w.granted
             LIMIT 1
            """)
        guard let row = rows.first else { return nil }
        return LockBlocker(
            pid: try row.decode(Int32.self, "pid"),
            user: try row.decode(String.self, "usename"),
            application: try row.decode(String.self, "application_name"),
            state: try row.decode(String.self, "state"),
            query: try row.decode(String.self, "query"),
            wantedMode: try row.decode(String.self, "wanted_mode"),
            heldModes: try row.decode(String.self, "held_modes"),
            object: try row.decode(String.self, "object"),
            transactionSeconds: try row.decode(Double.self, "transaction_seconds"))
    }
}
