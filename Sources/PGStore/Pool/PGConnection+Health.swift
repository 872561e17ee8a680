import CLibPQ
import Glibc

extension PGConnection {
    /// True when the server closed this idle session (a restart, `pg_terminate_backend`):
    /// an idle session has nothing to read unless the server sent an error or hung up.
    /// Costs one `poll` with no wait.
    func lostWhileIdle() -> Bool {
        if isClosed { return true }
        var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, 0) > 0 else { return false }
        if PQconsumeInput(handle) == 0 { return true }
        collectNotifications()
        return PQstatus(handle) == CONNECTION_BAD
    }

    /// Brings a connection back to a clean idle session: finishes abandoned streams and rolls
    /// back an open transaction. False when that failed (the connection should be dropped).
    func resetForReuse() async -> Bool {
        let outcome = await Task {
            try await self.beginExclusiveUse()
            self.endExclusiveUse()
            if self.transactionStatus != .idle {
                self.transactionDepth = 0
                try await self.execute("ROLLBACK")
            }
        }.result
        if case .failure = outcome { return false }
        return !isClosed && transactionStatus == .idle
    }
}
