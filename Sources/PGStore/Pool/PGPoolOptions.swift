/// Limits and timings of a `PGPool`.
public struct PGPoolOptions: Sendable {
    /// The most connections open at once (in use, idle or being opened).
    public var maxConnections: Int
    /// How long `withConnection` waits for a free connection before it throws `.timeout`.
    public var acquireTimeout: Duration
    /// An idle connection unused this long is closed (nil keeps idle connections open).
    public var idleTimeout: Duration?
    /// A connection older than this is closed when it comes back (nil: no limit), so that
    /// server-side memory and DNS/failover changes are picked up.
    public var maxLifetime: Duration?
    /// A connection idle longer than this runs `SELECT 1` before it is handed out.
    public var healthCheckAfterIdle: Duration
    /// The most `PGPool.pipeline` calls one connection runs in a round trip: its holder's own
    /// and those waiting at the head of the line. 1 runs every call on its own.
    public var pipelinesPerRoundTrip: Int

    /// Defaults suit a service: 10 connections, 10 s to wait for one, idle ones closed after
    /// 5 minutes, every connection renewed after an hour, checked after 30 s of idleness.
    public init(
        maxConnections: Int = 10,
        acquireTimeout: Duration = .seconds(10),
        idleTimeout: Duration? = .seconds(300),
        maxLifetime: Duration? = .seconds(3_600),
        healthCheckAfterIdle: Duration = .seconds(30),
        pipelinesPerRoundTrip: Int = 16
    ) {
        precondition(maxConnections > 0, "a pool needs at least one connection")
        precondition(pipelinesPerRoundTrip > 0, "a round trip carries at least the caller's own pipeline")
        self.maxConnections = maxConnections
        self.acquireTimeout = acquireTimeout
        self.idleTimeout = idleTimeout
        self.maxLifetime = maxLifetime
        self.healthCheckAfterIdle = healthCheckAfterIdle
        self.pipelinesPerRoundTrip = pipelinesPerRoundTrip
    }
}

/// A snapshot of what a pool holds and has done.
public struct PGPoolStatistics: Sendable, Equatable, CustomStringConvertible {
    /// Connections open or being opened (`idle + inUse + opening`).
    public var open: Int
    /// Open connections waiting in the pool.
    public var idle: Int
    /// Connections handed out.
    public var inUse: Int
    /// Connections being opened.
    public var opening: Int
    /// Callers waiting for a connection.
    public var waiting: Int
    /// Connections opened since the pool started.
    public var created: Int
    /// Connection attempts that failed.
    public var failed: Int
    /// Connections closed because they broke, aged out, sat idle too long or failed a check.
    public var discarded: Int
    /// The most connections open at the same moment.
    public var peakOpen: Int
    /// `pipeline` calls run by another caller's connection, in its round trip.
    public var servedPipelines: Int

    /// One line, e.g. `open 8 (idle 3, in use 5, opening 0), waiting 12, created 8, failed 0`.
    public var description: String {
        "open \(open) (idle \(idle), in use \(inUse), opening \(opening)), waiting \(waiting), "
            + "created \(created), failed \(failed), discarded \(discarded), peak \(peakOpen), "
            + "served pipelines \(servedPipelines)"
    }
}
