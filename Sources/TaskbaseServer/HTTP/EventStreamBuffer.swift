import Synchronization

/// The bytes waiting to go out on one streamed response, bounded: a producer (an event
/// subscriber's task, an export) writes, libmicrohttpd's thread reads when the socket can take
/// more. On an event stream a client too slow to keep up overflows the bound and is
/// disconnected, so it never holds anyone else back. A download (`resumable: false`) waits for
/// its reader instead (`drain`), and ends either complete (`close`) or cut off (`abort`), never
/// looking complete when it is not.
public final class EventStreamBuffer: Sendable {
    private struct State {
        var pending = ByteQueue()
        var closed = false
        var aborted = false
        var overflowed = false
        var wake: (@Sendable () -> Void)?
        var onTerminate: (@Sendable () -> Void)?
        var disconnect: (@Sendable () -> Void)?
        var gone = false

        /// Ends the stream with nothing more sent and shuts the socket down (called under the
        /// lock, so the connection cannot close, and its socket be reused, meanwhile).
        mutating func cutOff() {
            closed = true
            pending.removeAll()
            if !gone { disconnect?() }
            disconnect = nil
        }
    }

    private let state = Mutex(State())
    /// The most bytes held for a client before it is cut off.
    public let capacity: Int
    /// Whether its client can pick up where the stream ended (an event stream, by
    /// `Last-Event-ID`): shutdown then ends it at once; a download is let finish within the grace
    /// and cut off after it.
    public let resumable: Bool

    /// A buffer holding at most `capacity` bytes; a download's (`resumable: false`) producer
    /// keeps to it by waiting in `drain`.
    public init(capacity: Int, resumable: Bool = true) {
        self.capacity = capacity
        self.resumable = resumable
    }

    /// Queues `text`; false when the stream is closed or the client fell too far behind (the
    /// stream is then closed and the client disconnected).
    @discardableResult
    public func write(_ text: String) -> Bool {
        enqueue(count: text.utf8.count) { $0.append(contentsOf: text.utf8) }
    }

    /// Queues `text`, waiting up to `patience` for room while the client drains a burst; a
    /// client that has not made room by then is too slow and is cut off (false, as `write`).
    public func send(_ text: String, patience: Duration) async -> Bool {
        let deadline = ContinuousClock.now + patience
        while true {
            let (fits, closed) = state.withLock { ($0.pending.count + text.utf8.count <= capacity, $0.closed) }
            if closed { return false }
            if fits || ContinuousClock.now >= deadline { return write(text) }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Queues `bytes` of a download, whatever is queued already (its producer keeps to the bound
    /// with `drain`); false once the stream has ended.
    @discardableResult
    public func write(bytes: UnsafeRawBufferPointer) -> Bool {
        enqueue(count: bytes.count) { $0.append(contentsOf: bytes) }
    }

    /// Queues `count` bytes with `add` and wakes the connection. An event stream that would
    /// hold more than `capacity` is closed and its client disconnected instead; a download
    /// (`resumable: false`) takes them whatever it holds. False once the stream has ended.
    private func enqueue(count: Int, _ add: (inout ByteQueue) -> Void) -> Bool {
        let (accepted, wake) = state.withLock { state -> (Bool, (@Sendable () -> Void)?) in
            guard !state.closed else { return (false, nil) }
            if resumable, state.pending.count + count > capacity {
                state.overflowed = true
                state.cutOff()
            } else {
                add(&state.pending)
            }
            let wake = state.wake
            state.wake = nil
            return (!state.overflowed, wake)
        }
        wake?()
        return accepted
    }

    /// Waits until at most `capacity` bytes are queued; true then. A client that has not made
    /// room within `patience` is too slow: the stream is cut off (`abort`) and the answer is
    /// false, as it is once the stream has ended.
    public func drain(patience: Duration) async -> Bool {
        let deadline = ContinuousClock.now + patience
        while true {
            let (fits, closed) = state.withLock { ($0.pending.count <= capacity, $0.closed) }
            if closed { return false }
            if fits { return true }
            if ContinuousClock.now >= deadline {
                abort()
                return false
            }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Ends the stream without its proper end: the connection is closed with nothing more
    /// sent, so the client sees the body is incomplete (a download that failed half-way). The
    /// socket is shut down too, as on overflow: a client that stopped reading leaves the daemon
    /// waiting on a full socket, never asking the stream for more.
    public func abort() { end(aborting: true) }

    /// Whether the stream was cut off (`abort`) rather than ended.
    public var wasAborted: Bool { state.withLock { $0.aborted } }

    /// Bytes queued and not yet taken by the connection.
    public var pendingBytes: Int { state.withLock { $0.pending.count } }

    /// Ends the stream once what is queued has gone out.
    public func close() { end(aborting: false) }

    private func end(aborting: Bool) {
        let wake = state.withLock { state in
            state.closed = true
            if aborting {
                state.aborted = true
                state.cutOff()
            }
            let wake = state.wake
            state.wake = nil
            return wake
        }
        wake?()
    }

    /// Whether the stream was cut off for falling behind.
    public var overflowed: Bool { state.withLock { $0.overflowed } }

    /// Whether the stream has ended (closed, overflowed or the connection gone).
    public var isClosed: Bool { state.withLock { $0.closed } }

    /// Runs `body` once the connection is gone (the client left, or the stream ended); at once
    /// if it already is.
    public func onTerminate(_ body: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state in
            if state.gone { return true }
            state.onTerminate = body
            return false
        }
        if runNow { body() }
    }

    /// libmicrohttpd's thread: copies up to `max` bytes to `buffer`; returns how many, -1 at the
    /// end, -2 when cut off, or 0 after calling `suspend` (then `resume` is called once there is more).
    func read(into buffer: UnsafeMutableRawPointer, max: Int, suspend: () -> Void, resume: @escaping @Sendable () -> Void) -> Int {
        state.withLock { state in
            if state.aborted { return -2 }
            if !state.pending.isEmpty { return state.pending.take(into: buffer, max: max) }
            if state.closed { return -1 }
            state.wake = resume
            suspend()
            return 0
        }
    }

    /// The HTTP layer: how to cut the connection off when the client falls too far behind or
    /// the stream is aborted.
    func onOverflow(disconnect: @escaping @Sendable () -> Void) {
        state.withLock { state in if !state.gone { state.disconnect = disconnect } }
    }

    /// libmicrohttpd let go of the response, or is closing the connection: it is gone.
    func terminated() {
        let body = state.withLock { state in
            state.closed = true
            state.gone = true
            state.wake = nil
            state.disconnect = nil
            let body = state.onTerminate
            state.onTerminate = nil
            return body
        }
        body?()
    }
}

/// Bytes queued at the back and taken from the front in pieces (libmicrohttpd asks for 4 KiB at
/// a time), in linear time overall: what was taken leaves the storage only once it is at least
/// half of it, rather than moving the rest forward on every take (a 1 MB page of an export
/// would move ~100 MB).
struct ByteQueue {
    private var storage: [UInt8] = []
    private var start = 0

    /// Bytes queued and not yet taken.
    var count: Int { storage.count - start }
    var isEmpty: Bool { count == 0 }

    mutating func append(contentsOf bytes: some Sequence<UInt8>) {
        storage.append(contentsOf: bytes)
    }

    mutating func removeAll() {
        storage = []
        start = 0
    }

    /// Copies up to `max` bytes from the front to `buffer` and drops them; returns how many.
    mutating func take(into buffer: UnsafeMutableRawPointer, max: Int) -> Int {
        let taken = Swift.min(max, count)
        storage.withUnsafeBytes { bytes in buffer.copyMemory(from: bytes.baseAddress! + start, byteCount: taken) }
        start += taken
        if start == storage.count {
            // Drained: an idle event stream keeps no more than a small buffer.
            storage.removeAll(keepingCapacity: storage.capacity <= 4_096)
            start = 0
        } else if start >= 64 << 10, start * 2 >= storage.count {
            storage.removeFirst(start)
            start = 0
        }
        return taken
    }
}
