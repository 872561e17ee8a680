import Foundation
import PGStore
import TaskCore

/// The change feed travels as NOTIFY on one channel per team, sent inside the transaction
/// that made the change, so listeners hear only of committed changes.
extension PostgresTaskStore {
    /// The channel of team `key`.
    static func channel(for key: TeamKey) -> String { "taskbase.team.\(key.rawValue)" }

    /// What a notification carries (`notifySQL` writes it): enough to rebuild the `TaskChange`.
    struct ChangePayload: Decodable {
        var kind: String
        var team: String
        var number: Int64
        var taskID: Int64
        var version: Int64
        var actorID: Int64
        /// Microseconds since 1970.
        var at: Int64

        func change() throws -> TaskChange {
            guard let kind = TaskChange.Kind(rawValue: kind) else {
                throw UnexpectedStoredValue(column: "payload.kind", value: kind, expected: "change kind")
            }
            return TaskChange(
                kind: kind, key: TaskKey(team: try TeamKey(team), number: number), taskID: TaskID(taskID), version: version,
                actorID: UserID(actorID), at: Date(timeIntervalSince1970: Double(at) / 1_000_000))
        }
    }

    /// SQL that queues the notification of one change, built from column expressions of the
    /// statement it is part of (PostgreSQL delivers it when the transaction commits). The
    /// keys are `ChangePayload`'s.
    static func notifySQL(
        kind: PGQuery, team: TeamKey, number: String, taskID: String, version: String, actorID: PGQuery, at: PGQuery
    ) -> PGQuery {
        """
        pg_notify(\(channel(for: team)), json_build_object('kind', \(kind), 'team', \(team.rawValue)::text,
            'number', \(unsafeSQL: number), 'taskID', \(unsafeSQL: taskID), 'version', \(unsafeSQL: version),
            'actorID', \(actorID), 'at', (extract(epoch FROM \(at)) * 1000000)::bigint)::text)
        """
    }
}

extension PostgresTaskStore: TaskChangeFeed {
    /// Checks read access, then LISTENs on the team's channel on a connection of its own
    /// (a listening session cannot serve queries), to `listenConfig` when set. The connection closes when the consumer
    /// stops iterating or its task is cancelled.
    public func changes(in team: TeamKey, access: AccessRequirement) async throws -> TaskChangeStream {
        _ = try await teamAccess(team, access: access)
        return try await listen(on: Self.channel(for: team)) { notification in
            try JSONDecoder().decode(ChangePayload.self, from: Data(notification.payload.utf8)).change()
        }
    }

    /// LISTENs on `channel` on a connection of its own (a listening session cannot serve
    /// queries), to `listenConfig` when set, relaying each notification as `transform` makes it.
    /// The connection closes when the consumer stops iterating or its task is cancelled.
    func listen<Element: Sendable>(
        on channel: String, _ transform: @escaping @Sendable (PGNotification) throws -> Element
    ) async throws -> AsyncThrowingStream<Element, any Error> {
        let connection: PGConnection
        let notifications: PGNotificationStream
        do {
            connection = try await PGConnection.connect(listenConfig ?? source.config)
            notifications = try await connection.notifications(on: channel)
        } catch let error as PGError {
            throw Self.translate(error)
        }
        return AsyncThrowingStream { continuation in
            let listener = Task {
                do {
                    for try await notification in notifications { continuation.yield(try transform(notification)) }
                    continuation.finish()
                } catch is CancellationError {
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
                await connection.close()
            }
            continuation.onTermination = { _ in listener.cancel() }
        }
    }
}
