import CLibPQ

/// Feeds a COPY FROM STDIN: raw bytes in the COPY's format, or rows it encodes.
///
/// It runs in the caller's isolation, so an actor's code can feed it; one task uses it.
/// Data is gathered into 64 KiB messages; each one waits until the socket has taken the one
/// before, so a fast producer never piles up memory ahead of a slow server.
public final class PGCopyWriter {
    private let connection: PGConnection
    /// The format the COPY statement named, used by `writeRow`.
    public let format: PGCopyFormat
    private var buffer: [UInt8] = []

    static let messageSize = 65_536

    init(connection: PGConnection, format: PGCopyFormat) {
        self.connection = connection
        self.format = format
        buffer.reserveCapacity(Self.messageSize + 4_096)
    }

    /// Appends bytes already in the COPY's format (whole rows or parts of them).
    nonisolated(nonsending) public func write<Bytes: Collection>(_ bytes: Bytes) async throws where Bytes.Element == UInt8 {
        buffer.append(contentsOf: bytes)
        if buffer.count >= Self.messageSize { try await sendBuffer() }
    }

    /// Appends text already in the COPY's format.
    nonisolated(nonsending) public func write(_ text: String) async throws {
        try await write(text.utf8)
    }

    /// Appends one row, each field encoded for the COPY's format (nil is NULL).
    nonisolated(nonsending) public func writeRow(_ fields: [String?]) async throws {
        format.encodeRow(fields, into: &buffer)
        if buffer.count >= Self.messageSize { try await sendBuffer() }
    }

    /// Sends what is gathered so far, in messages of at most 64 KiB. A cancelled task sends no
    /// more: it throws `CancellationError`, and `copyIn` ends the COPY as failed.
    nonisolated(nonsending) func sendBuffer() async throws {
        try Task.checkCancellation()
        var offset = 0
        while offset < buffer.count {
            let end = min(offset + Self.messageSize, buffer.count)
            try await connection.putCopyData(buffer[offset..<end])
            offset = end
        }
        buffer.removeAll(keepingCapacity: buffer.capacity <= 4 * Self.messageSize)
    }
}

extension PGConnection {
    /// Loads rows into `table` with COPY FROM STDIN, fed by `feed`, and returns how many rows
    /// the server stored.
    ///
    /// Table and column names are quoted identifiers (`schema.table` is one name, not two). When
    /// `feed` throws, the COPY is ended with that error so nothing of it remains, and the error
    /// is rethrown; a server error (a bad row) is thrown with its context line, e.g.
    /// `COPY items, line 50001, column n: "x"`. Cancelling the task ends the COPY the same way
    /// as a throwing `feed`: the writer sends no more and throws `CancellationError`, which is
    /// rethrown. Either way the connection stays usable.
    @discardableResult
    nonisolated(nonsending) public func copyIn(
        table: String, columns: [String] = [], format: PGCopyFormat = .text,
        _ feed: (PGCopyWriter) async throws -> Void
    ) async throws -> Int {
        try await withExclusiveUse {
            let sql = "COPY \(Self.copyTarget(table: table, columns: columns)) FROM STDIN\(format.sqlOptions)"
            try await self.startCopy(sql, expecting: PGRES_COPY_IN)
            let writer = PGCopyWriter(connection: self, format: format)
            do {
                try await feed(writer)
                try await writer.sendBuffer()
            } catch {
                await self.failCopyIn(because: error, sql: sql)
                throw error
            }
            try await self.endCopyIn(message: nil)
            return try await self.collectResults(timeout: nil, sql: sql).last?.affectedRows ?? 0
        }
    }

    /// Queues one CopyData message, then waits until the socket has taken everything queued.
    func putCopyData(_ bytes: ArraySlice<UInt8>) async throws {
        while true {
            let queued = bytes.withUnsafeBytes { raw in
                PQputCopyData(handle, raw.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(raw.count))
            }
            if queued == 1 { break }
            if queued < 0 { throw connectionError("could not send COPY data") }
            try await waitWritable()
        }
        try await flush()
    }

    /// Ends the COPY: successfully with a nil `message`, otherwise as failed with `message`.
    private func endCopyIn(message: String?) async throws {
        while true {
            let queued = PQputCopyEnd(handle, message)
            if queued == 1 { break }
            if queued < 0 { throw connectionError("could not end COPY") }
            try await waitWritable()
        }
        try await flush()
    }

    /// Ends a COPY whose producer failed, so the server discards it, and drains its result.
    private func failCopyIn(because error: Error, sql: String) async {
        let message = "COPY aborted by the client: \(String(describing: error).prefix(200))"
        do {
            try await endCopyIn(message: message)
            _ = try await collectResults(timeout: nil, sql: sql)
        } catch {
            // The server reports the failed COPY as an error: expected, and already explained.
        }
    }

    private func waitWritable() async throws {
        _ = await IOReactor.shared.wait(fd: PQsocket(handle), for: .readOrWrite, deadline: nil)
        if PQconsumeInput(handle) == 0 { throw connectionError("lost the connection during COPY") }
    }
}
