/// The live changes of one team, made by anyone in any process, from the moment of subscribing.
public typealias TaskChangeStream = AsyncThrowingStream<TaskChange, any Error>

/// A source of task changes: LISTEN/NOTIFY in Postgres, the store's own events in memory.
public protocol TaskChangeFeed: Sendable {
    /// Subscribes to team `team` once `access` (read) is verified. Every change committed after
    /// this returns is delivered, in commit order. The subscription ends when the consumer stops
    /// iterating or its task is cancelled, leaving no listener behind.
    func changes(in team: TeamKey, access: AccessRequirement) async throws -> TaskChangeStream
}
