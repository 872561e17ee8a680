import PGStore

/// The session advisory lock that lets one runner at a time change a database.
///
/// Taken by polling `pg_try_advisory_lock` on a connection of its own, never by blocking in
/// `pg_advisory_lock`: a runner blocked inside a statement holds a snapshot, and another
/// runner's `CREATE INDEX CONCURRENTLY` waits for every such snapshot — a deadlock the server
/// cannot see.
struct MigrationLock {
    /// The lock's key: "task" in ASCII, below 2^31 so `pg_locks.objid` shows it as is.
    static let key: Int64 = 0x7461_736B

    let connection: PGConnection

    /// Polls until the lock is held, reporting the holder once while it waits.
    func acquire(wait: Duration, poll: Duration, onWait: (String?) -> Void) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + wait
        var reported = false
        while true {
            let rows = try await connection.query("SELECT pg_try_advisory_lock(\(Self.key)) AS locked")
            if try rows.first?.decode(Bool.self, "locked") == true { return }
            let holder = try await self.holder()
            if !reported {
                onWait(holder)
                reported = true
            }
            guard clock.now < deadline else { throw MigrationError.migrationLockBusy(waited: wait, holder: holder) }
            try await Task.sleep(for: min(poll, deadline - clock.now))
        }
    }

    /// Gives the lock back; closing the connection would too.
    func release() async throws {
        _ = try await connection.query("SELECT pg_advisory_unlock(\(Self.key))")
    }

    /// Who holds the lock now, as `pid N (user, application, since ...)`.
    private func holder() async throws -> String? {
        let rows = try await connection.query(
            """
            SELECT a.pid, coalesce(a.usename::text, '?') AS usename, coalesce(a.application_name, '') AS application_name,
                   coalesce(a.client_addr::text, 'local') AS client
              FROM pg_catalog.pg_locks l JOIN pg_catalog.pg_stat_activity a ON a.pid = l.pid
             WHERE l.locktype = 'advisory' AND l.granted AND l.database = (SELECT oid FROM pg_catalog.pg_database WHERE datname = current_database())
               AND l.classid = 0 AND l.objid::bigint = \(Self.key) AND l.objsubid = 1
            """)
        guard let row = rows.first else { return nil }
        let application = try row.decode(String.self, "application_name")
        return "pid \(try row.decode(Int32.self, "pid")), user \(try row.decode(String.self, "usename"))"
            + (application.isEmpty ? "" : ", application \(application)") + ", from \(try row.decode(String.self, "client"))"
    }
}
