import CLibPQ
import Glibc

extension PGConnection {
    /// What an idle session's socket says about it.
    enum IdleState {
        case quiet
        /// The server hung up (a restart, `pg_terminate_backend`).
        case lost
        /// Something arrived that was not a notification: worth a `SELECT 1`.
        case suspicious
    }

    /// Looks at an idle session without a round trip: an idle session has nothing to read
    /// unless the server sent an error, hung up, or delivered a notification. Costs one `poll`
    /// with no wait when all is well.
    func idleState() -> IdleState {
        if isClosed { return .lost }
        var readable = false
        // A terminated session first sends its FATAL error, then the end of the stream: read
        // until libpq sees the end, or the socket has nothing more.
        for _ in 0..<4 {
            var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 0) > 0 else { break }
            readable = true
            if PQconsumeInput(handle) == 0 || PQstatus(handle) == CONNECTION_BAD { return .lost }
        }
        guard readable else { return .quiet }
        let notified = pendingNotifications.count
        collectNotifications()
        return pendingNotifications.count > notified ? .quiet : .suspicious
    }

    /// Brings a connection back to a clean idle session: finishes abandoned streams and rolls
    /// back an open transaction. False when that failed (the connection should be dropped).
    func resetForReuse() async -> Bool {
        let done: Void? = try? await withCancellationShield {
            try await self.beginExclusiveUse()
            self.endExclusiveUse()
            if self.transactionStatus != .idle {
                self.transactionDepth = 0
                try await self.execute("ROLLBACK")
            }
        }
        if done == nil { return false }
        return !isClosed && transactionStatus == .idle
    }
}
