import CLibPQ

/// The data of a COPY TO STDOUT, as chunks of whole rows (up to about 64 KiB each), read from
/// the socket only as fast as they are consumed, so memory stays flat for any size.
///
/// The connection is busy until the last chunk has been read. Stopping early (leaving the loop)
/// cancels the COPY on the server before the connection's next use; cancelling the reading
/// task ends the iteration with `CancellationError`. Either way the connection stays usable.
public struct PGCopyOutStream: AsyncSequence, Sendable {
    /// One chunk of whole rows.
    public typealias Element = [UInt8]
    let state: CopyOutState

    /// Reads the next chunk.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let state: CopyOutState

        /// The next chunk, or nil at the end.
        public mutating func next() async throws -> [UInt8]? {
            try await state.nextChunk()
        }
    }

    /// The iterator; the sequence is meant to be iterated once, by one task.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(state: state) }
}

/// One COPY TO STDOUT in progress; the connection is released when it ends or is dropped.
final class CopyOutState: @unchecked Sendable {
    private let connection: PGConnection
    private let sql: String
    private var finished = false

    static let chunkSize = 65_536

    init(connection: PGConnection, sql: String) {
        self.connection = connection
        self.sql = sql
    }

    deinit {
        guard !finished else { return }
        connection.pendingCleanup.append(.copyOut)
        connection.endExclusiveUse()
    }

    func nextChunk() async throws -> [UInt8]? {
        guard !finished else { return nil }
        var chunk: [UInt8] = []
        var readSocket = false
        while true {
            var row: UnsafeMutablePointer<CChar>?
            let count = PQgetCopyData(connection.handle, &row, 1)
            if count > 0, let row {
                chunk.append(contentsOf: UnsafeRawBufferPointer(start: row, count: Int(count)))
                PQfreemem(row)
                readSocket = false
                if chunk.count >= Self.chunkSize { return chunk }
            } else if count == 0 {
                if !chunk.isEmpty { return chunk }
                if readSocket {
                    let readiness = await IOReactor.shared.wait(
                        fd: PQsocket(connection.handle), for: .read, deadline: nil, endOnCancel: true)
                    if readiness == .cancelled {
                        try await finish { try await self.connection.cancelCopyOut(sql: self.sql) }
                        throw CancellationError()
                    }
                }
                if PQconsumeInput(connection.handle) == 0 {
                    let failure = connection.connectionError("lost the connection during COPY")
                    await finish {}
                    throw failure
                }
                readSocket = true
            } else {
                try await finish { _ = try await self.connection.collectResults(timeout: nil, sql: self.sql) }
                return chunk.isEmpty ? nil : chunk
            }
        }
    }

    /// Runs the last step on the connection, then releases it.
    private func finish(_ body: () async throws -> Void) async rethrows {
        finished = true
        defer { connection.endExclusiveUse() }
        try await body()
    }
}

extension PGConnection {
    /// Streams `table` (or some of its columns) out with COPY TO STDOUT.
    ///
    /// Names are quoted identifiers. A statement the server rejects throws here.
    public func copyOut(table: String, columns: [String] = [], format: PGCopyFormat = .text) async throws -> PGCopyOutStream {
        try await startCopyOut("COPY \(Self.copyTarget(table: table, columns: columns)) TO STDOUT\(format.sqlOptions)")
    }

    /// Streams the rows of a query out with `COPY (query) TO STDOUT`. COPY takes no bind
    /// parameters, so the text must be trusted, program-made SQL.
    public func copyOut(unsafeSQL query: String, format: PGCopyFormat = .text) async throws -> PGCopyOutStream {
        try await startCopyOut("COPY (\(query)) TO STDOUT\(format.sqlOptions)")
    }

    private func startCopyOut(_ sql: String) async throws -> PGCopyOutStream {
        try await beginExclusiveUse()
        do {
            try await startCopy(sql, expecting: PGRES_COPY_OUT)
        } catch {
            endExclusiveUse()
            throw error
        }
        return PGCopyOutStream(state: CopyOutState(connection: self, sql: sql))
    }

    /// Stops a COPY TO STDOUT early: cancels it on the server and drains what is in flight.
    func cancelCopyOut(sql: String) async throws {
        cancelHandle.cancel()
        try await abandonCopy(status: PGRES_COPY_OUT)
        do {
            _ = try await collectResults(timeout: nil, sql: sql)
        } catch let error as PGError where error.kind == .server {
            // The cancellation's own error (57014), or the COPY had failed anyway.
        }
    }

    /// Finishes what abandoned streams left behind (see `PendingCleanup`).
    func runPendingCleanup() async throws {
        while !pendingCleanup.isEmpty {
            switch pendingCleanup.removeFirst() {
            case .copyOut:
                try await cancelCopyOut(sql: "COPY")
            case .unlisten(let channel):
                try await unlisten(channel)
            }
        }
    }
}
