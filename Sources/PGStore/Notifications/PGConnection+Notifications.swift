import CLibPQ

/// The notifications of one channel, in the order the server delivered them.
///
/// Listening keeps its connection busy: use a dedicated connection (not one from a pool),
/// since a NOTIFY is delivered only to sessions that LISTEN. The sequence ends (returns nil)
/// when the consuming task is cancelled, after running UNLISTEN; leaving the loop early also
/// frees the connection, with UNLISTEN run before its next use. It throws when the connection
/// is lost.
public struct PGNotificationStream: AsyncSequence, Sendable {
    /// One notification.
    public typealias Element = PGNotification
    let state: ListenState

    /// Waits for the next notification.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let state: ListenState

        /// The next notification, or nil at the end.
        public mutating func next() async throws -> PGNotification? {
            try await state.next()
        }
    }

    /// The iterator; the sequence is meant to be iterated once, by one task.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(state: state) }
}

/// One LISTEN in progress; the connection is released when it ends or is dropped.
final class ListenState: @unchecked Sendable {
    private let connection: PGConnection
    let channel: String
    private var finished = false

    init(connection: PGConnection, channel: String) {
        self.connection = connection
        self.channel = channel
    }

    deinit {
        guard !finished else { return }
        connection.pendingCleanup.append(.unlisten(channel: channel))
        connection.endExclusiveUse()
    }

    func next() async throws -> PGNotification? {
        guard !finished else { return nil }
        let handle = connection.handle
        while true {
            connection.collectNotifications()
            if let index = connection.pendingNotifications.firstIndex(where: { $0.channel == channel }) {
                return connection.pendingNotifications.remove(at: index)
            }
            let readiness = await IOReactor.shared.wait(fd: PQsocket(handle), for: .read, deadline: nil, endOnCancel: true)
            if readiness == .cancelled {
                finished = true
                defer { connection.endExclusiveUse() }
                // UNLISTEN shielded: this task's cancellation must not cancel it.
                let connection = self.connection, channel = self.channel
                try? await withCancellationShield { try await connection.unlisten(channel) }
                return nil
            }
            if PQconsumeInput(handle) == 0 {
                finished = true
                connection.endExclusiveUse()
                throw connection.connectionError("lost the connection while listening")
            }
        }
    }
}

extension PGConnection {
    /// Runs LISTEN on `channel` (a quoted identifier, so case is kept) and returns its
    /// notifications as they arrive, starting with any that arrived while earlier statements
    /// ran on this connection.
    public func notifications(on channel: String) async throws -> PGNotificationStream {
        try await beginExclusiveUse()
        do {
            _ = try await run(PGQuery(unsafeSQL: "LISTEN \(PGQuery.quoteIdentifier(channel))"), timeout: nil)
        } catch {
            endExclusiveUse()
            throw error
        }
        return PGNotificationStream(state: ListenState(connection: self, channel: channel))
    }

    /// Stops listening on `channel` and drops its undelivered notifications.
    func unlisten(_ channel: String) async throws {
        _ = try await run(PGQuery(unsafeSQL: "UNLISTEN \(PGQuery.quoteIdentifier(channel))"), timeout: nil)
        pendingNotifications.removeAll { $0.channel == channel }
    }
}
