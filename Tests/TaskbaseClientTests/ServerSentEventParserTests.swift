import TaskbaseClient
import Testing

@Suite("Server-sent event parser")
struct ServerSentEventParserTests {
    /// The events of `text` fed in pieces of `size` bytes.
    func parse(_ text: String, chunk size: Int = .max) -> (events: [ServerSentEvent], parser: ServerSentEventParser) {
        var parser = ServerSentEventParser()
        var events: [ServerSentEvent] = []
        let bytes = Array(text.utf8)
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + max(1, size))
            events += parser.feed(bytes[start..<end])
            start = end
        }
        return (events, parser)
    }

    static let stream =
        ": keep-alive\r\nid: 7\r\nevent: change\r\ndata: {\"kind\":\"créé\"}\r\n\r\n: keep-alive\n\nid: 9\nevent: resync\ndata: {\"through\": 9}\n\n"

    @Test("events, ids and comments come out the same however the bytes are cut", arguments: [1, 2, 3, 5, 8, 13, 1000])
    func chunkBoundaries(size: Int) {
        let (events, parser) = parse(Self.stream, chunk: size)
        #expect(
            events == [
                ServerSentEvent(id: "7", event: "change", data: "{\"kind\":\"créé\"}"),
                ServerSentEvent(id: "9", event: "resync", data: "{\"through\": 9}"),
            ])
        #expect(parser.lastEventID == "9")
        #expect(parser.commentCount == 2)
    }

    @Test("each event comes with the place before it: an id sent on its own counts, an event's own id does not")
    func resumePlaces() {
        var parser = ServerSentEventParser()
        let first = parser.feedResumable(Array(": connected\nid: 5\n\nid: 6\nevent: change\ndata: a\n\nid: 7\ndata: b\n\n".utf8))
        #expect(first.map(\.event.id) == ["6", "7"])
        #expect(first.map(\.resumeFrom) == ["5", "6"])
        let next = parser.feedResumable(Array("data: c\n\n".utf8))
        #expect(next.map(\.event.id) == ["7"] && next.map(\.resumeFrom) == ["7"])
    }

    @Test("LF, CR and CRLF all end lines, and a CR at a chunk's end is not a blank line with the next LF")
    func lineEndings() {
        for text in ["data: a\n\n", "data: a\r\r", "data: a\r\n\r\n"] {
            #expect(parse(text).events == [ServerSentEvent(id: "", data: "a")], "\(text.debugDescription)")
        }
        var parser = ServerSentEventParser()
        #expect(parser.feed(Array("data: a\r".utf8)).isEmpty)
        #expect(parser.feed(Array("\ndata: b\r".utf8)).isEmpty)
        #expect(parser.feed(Array("\n\r\n".utf8)) == [ServerSentEvent(id: "", data: "a\nb")])
    }

    @Test("several data lines join with line feeds; one space after the colon is dropped, no more")
    func multiLineData() {
        #expect(parse("data:one\ndata:  two\ndata\ndata: \n\n").events == [ServerSentEvent(id: "", data: "one\n two\n\n")])
    }

    @Test("an event without data is not dispatched, yet its id sticks; an id with NUL is ignored")
    func idField() {
        let (events, parser) = parse("id: 3\nevent: change\n\ndata: x\n\nid: 4\u{0}\ndata: y\n\nid\ndata: z\n\n")
        #expect(events == [ServerSentEvent(id: "3", data: "x"), ServerSentEvent(id: "3", data: "y"), ServerSentEvent(id: "", data: "z")])
        #expect(parser.lastEventID == "")
    }

    @Test("an event cut off before its blank line leaves the last id at the event before it", arguments: [1, 7, 1000])
    func cutOffEvent(size: Int) {
        // The server writes the id first; a stream cut inside event 8 (a slow reader's overflow,
        // a dropped connection) must resume after 7, or change 8 is never delivered.
        let (events, parser) = parse("id: 7\nevent: change\ndata: {}\n\nid: 8\nevent: change\nda", chunk: size)
        #expect(events == [ServerSentEvent(id: "7", event: "change", data: "{}")])
        #expect(parser.lastEventID == "7")
        var resumed = ServerSentEventParser()
        resumed.resume(after: "7")
        #expect(resumed.feed(Array("data: x\n\n".utf8)) == [ServerSentEvent(id: "7", data: "x")])
        #expect(parse("id: 5\n\n").parser.lastEventID == "5", "an id-only event still sets it")
    }

    @Test("unknown fields are ignored, retry takes only digits, and an unfinished event is not dispatched")
    func otherFields() {
        let (events, parser) = parse("\u{FEFF}retry: 1500\nretry: soon\nfoo: bar\ndata: done\n\ndata: half")
        #expect(events == [ServerSentEvent(id: "", data: "done")])
        #expect(parser.retryMilliseconds == 1500)
    }

    @Test("a multi-byte character cut between chunks decodes whole")
    func splitUTF8() {
        var parser = ServerSentEventParser()
        let bytes = Array("data: ü€😀\n\n".utf8)
        var events: [ServerSentEvent] = []
        for byte in bytes { events += parser.feed([byte]) }
        #expect(events == [ServerSentEvent(id: "", data: "ü€😀")])
    }
}
