/// One event of a `text/event-stream`, as the HTML standard's parser dispatches it.
public struct ServerSentEvent: Hashable, Sendable {
    /// The last event id the stream set at or before this event ("" when none): what a
    /// reconnecting reader sends as `Last-Event-ID`.
    public var id: String
    /// The `event:` field, "message" when the event named none.
    public var event: String
    /// The `data:` lines joined with line feeds.
    public var data: String

    /// An event as dispatched.
    public init(id: String, event: String = "message", data: String) {
        self.id = id
        self.event = event
        self.data = data
    }
}

/// An incremental `text/event-stream` parser: feed it the bytes as they arrive, in chunks cut
/// anywhere (inside a line, between CR and LF, inside a UTF-8 sequence), and it returns the
/// events completed so far. Follows the HTML standard: LF, CR and CRLF end lines; `:` starts a
/// comment; one space after the colon is dropped; an id with NUL is ignored; an event with no
/// data is not dispatched; an unfinished event at the end of the stream is dropped, and so is
/// its id: an `id:` line is buffered and becomes `lastEventID` only when its event ends (at
/// the blank line), so a reader cut off in the middle of event 8 resumes after 7, not after 8.
public struct ServerSentEventParser: Sendable {
    /// The id of the last event that ended (dispatched or not, as the standard has it); kept
    /// across events, as `Last-Event-ID` needs.
    public private(set) var lastEventID = ""
    /// The id the event being read will carry once it ends.
    private var idBuffer = ""
    /// The reconnection delay the server asked for with `retry:`, in milliseconds.
    public private(set) var retryMilliseconds: Int?
    /// How many comment lines (heartbeats) have arrived.
    public private(set) var commentCount = 0
    private var line: [UInt8] = []
    private var afterCR = false
    private var atStart = true
    private var data = ""
    private var hasData = false
    private var eventType = ""

    /// A parser at the start of a stream (a leading byte-order mark is skipped).
    public init() {}

    /// Starts from `lastEventID`, as a reader reconnecting with `Last-Event-ID` does.
    public mutating func resume(after lastEventID: String) {
        self.lastEventID = lastEventID
        idBuffer = lastEventID
    }

    /// Parses `bytes` and returns every event they complete, in order.
    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [ServerSentEvent] {
        feedResumable(bytes).map(\.event)
    }

    /// Parses `bytes` and returns every event they complete, in order, each with the last event
    /// id set before it (`resumeFrom`): where a reader that loses that event resumes, so that it
    /// comes again. An id sent on its own just before it (a stream's starting place) counts.
    public mutating func feedResumable(_ bytes: some Sequence<UInt8>) -> [(event: ServerSentEvent, resumeFrom: String)] {
        var events: [(event: ServerSentEvent, resumeFrom: String)] = []
        for byte in bytes {
            if afterCR {
                afterCR = false
                if byte == 0x0A { continue }
            }
            switch byte {
            case 0x0A: endLine(into: &events)
            case 0x0D:
                endLine(into: &events)
                afterCR = true
            default: line.append(byte)
            }
        }
        return events
    }

    private mutating func endLine(into events: inout [(event: ServerSentEvent, resumeFrom: String)]) {
        var bytes = line[...]
        line.removeAll(keepingCapacity: true)
        if atStart {
            atStart = false
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        }
        if bytes.isEmpty {
            dispatch(into: &events)
            return
        }
        if bytes.first == UInt8(ascii: ":") {
            commentCount += 1
            return
        }
        let colon = bytes.firstIndex(of: UInt8(ascii: ":"))
        let name = String(decoding: bytes[..<(colon ?? bytes.endIndex)], as: UTF8.self)
        var value = colon.map { bytes[bytes.index(after: $0)...] } ?? bytes[bytes.endIndex...]
        if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
        let text = String(decoding: value, as: UTF8.self)
        switch name {
        case "event": eventType = text
        case "data":
            if hasData { data += "\n" }
            data += text
            hasData = true
        case "id": if !value.contains(0) { idBuffer = text }
        case "retry": if !value.isEmpty, value.allSatisfy({ (0x30...0x39).contains($0) }), let ms = Int(text) { retryMilliseconds = ms }
        default: break
        }
    }

    private mutating func dispatch(into events: inout [(event: ServerSentEvent, resumeFrom: String)]) {
        let before = lastEventID
        lastEventID = idBuffer
        defer {
            data = ""
            hasData = false
            eventType = ""
        }
        guard hasData else { return }
        events.append((ServerSentEvent(id: lastEventID, event: eventType.isEmpty ? "message" : eventType, data: data), before))
    }
}
